import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, freePort, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';
import { spawnNode, waitFor, type NodeProcess } from '../support/processes.ts';
import { startTestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { realWaits } from '../support/realWaits.ts';

/*
 * The fault test of "Crash-safe writes": concurrent writers with idempotency keys against Slipway as a
 * child process (node src/main.ts) on a FerretDB of the test's own. Mid-load the database is killed
 * with SIGKILL and restarted, then the service is killed with SIGKILL and restarted. Writers retry
 * every write that was not acknowledged with the same key. At the end every acknowledged write is
 * stored exactly once and every key resolves to one resource.
 */
const WRITERS = 16;
const WRITES_PER_WRITER = 20;
const TAKEOVER_SECONDS = 1;

let dir: string, keysDir: string, binary: string, db: EmbeddedDatabase, service: NodeProcess | undefined;
let port: number, url: string, dbName: string, token: string, projectId: string;

async function startService(): Promise<NodeProcess> {
  const proc = spawnNode(['src/main.ts'], {
    PORT: String(port),
    PUBLIC_URL: url,
    MONGODB_URI: db.uri,
    MONGODB_DB: dbName,
    KEYS_DIR: keysDir,
    LOG_LEVEL: 'warn',
    IDEMPOTENCY_TAKEOVER_SECONDS: String(TAKEOVER_SECONDS),
    IDEMPOTENCY_WAIT_MS: '300',
    API_RATE_LIMIT_PER_HOUR: '1000000',
  });
  await waitFor(
    'the service to be ready',
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}: ${proc.stderr()}${proc.stdout()}`);
      const res = await fetch(`${url}/readyz`);
      await res.body?.cancel();
      return res.status === 200;
    },
    30_000,
    100,
  );
  return proc;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-db-'));
  keysDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-keys-'));
  binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION);
  db = await startFerretdb({ binary, dataDir: dir });
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // The owner and their token are made through the real app, on the port and keys the child will use.
  const setup = await startTestServer({ port, keysDir, overrides: { mongodbUri: db.uri } });
  try {
    dbName = setup.config.mongodbDb;
    const tokens = new Tokens(setup);
    token = await tokens.accessToken(await tokens.user('owner'), 'write');
  } finally {
    await setup.stop();
  }
  service = await startService();
  const res = await fetch(`${url}/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'faults' }) });
  projectId = ((await res.json()) as { id: string }).id;
}, 90_000);

afterAll(async () => {
  service?.kill();
  await service?.exited(5000).catch(() => undefined);
  await db?.stop().catch(() => undefined);
  for (const d of [dir, keysDir]) if (d) await rm(d, { recursive: true, force: true });
});

interface Write {
  key: string;
  kind: 'project' | 'deployment';
  /** The unique field that identifies the write's resource in the database. */
  marker: string;
  attempts: number;
  /** Ids of every 201 answer (all must be the same). */
  ids: string[];
  /** The acknowledgement was a replay of a response stored by an earlier attempt. */
  replayed: boolean;
  failures: Record<string, number>;
}


/** Sends the write until it is acknowledged (201), retrying with the same key on every failure. */
async function perform(write: Write, deadline: number): Promise<void> {
  const [pathname, body] =
    write.kind === 'project'
      ? ['/v1/projects', { name: write.marker }]
      : [`/v1/projects/${projectId}/deployments`, { environment: 'production', branch: write.marker }];
  while (Date.now() < deadline) {
    write.attempts++;
    let outcome: string;
    try {
      const res = await fetch(`${url}${pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': write.key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const answer = (await res.json().catch(() => ({}))) as { id?: string; error?: { code: string } };
      if (res.status === 201) {
        write.ids.push(answer.id!);
        write.replayed = res.headers.get('idempotent-replayed') === 'true';
        return;
      }
      outcome = `${res.status} ${answer.error?.code ?? ''}`.trim();
    } catch (err) {
      outcome = `network ${(err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error).name}`;
    }
    write.failures[outcome] = (write.failures[outcome] ?? 0) + 1;
    await realWaits.clientBackoff(100 + Math.random() * 200);
  }
}

describe('fault test: kill -9 the database, then the service, under concurrent idempotent writes', () => {
  it('every acknowledged write is stored once; every retried key resolves to one resource', async () => {
    const started = Date.now();
    const deadline = started + 75_000;
    const writes: Write[] = [];
    const acked = () => writes.filter((w) => w.ids.length > 0).length;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < WRITES_PER_WRITER; i++) {
        const key = `writer-${w}-write-${i}`;
        const write: Write = { key, kind: i % 2 ? 'deployment' : 'project', marker: key, attempts: 0, ids: [], replayed: false, failures: {} };
        writes.push(write);
        await perform(write, deadline);
      }
    });
    const total = WRITERS * WRITES_PER_WRITER;

    const faults = (async () => {
      await waitFor('a third of the writes', async () => acked() >= total / 3, 30_000, 20);
      const ackedAtDbKill = acked();
      await db.kill();
      await realWaits.outage(1000);
      db = await startFerretdb({ binary, dataDir: dir, port: db.port });
      await waitFor('two thirds of the writes', async () => acked() >= (2 * total) / 3, 40_000, 20);
      const ackedAtServiceKill = acked();
      service!.kill();
      await service!.exited(5000);
      service = await startService();
      return { ackedAtDbKill, ackedAtServiceKill };
    })();

    const [moments] = await Promise.all([faults, ...writers]);

    // Read what is stored straight from the database.
    const client = await MongoClient.connect(db.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      const stored = client.db(dbName);
      const projects = await stored.collection<{ _id: string; name: string }>('projects').find({}, { projection: { name: 1 } }).toArray();
      const deployments = await stored.collection<{ _id: string; branch: string }>('deployments').find({ project_id: projectId }, { projection: { branch: 1 } }).toArray();
      const byMarker = new Map<string, string[]>();
      for (const p of projects) byMarker.set(p.name, [...(byMarker.get(p.name) ?? []), p._id]);
      for (const d of deployments) byMarker.set(d.branch, [...(byMarker.get(d.branch) ?? []), d._id]);

      const retried = writes.filter((w) => w.attempts > 1);
      const failures: Record<string, number> = {};
      for (const w of writes) for (const [k, v] of Object.entries(w.failures)) failures[k] = (failures[k] ?? 0) + v;
      console.log(
        `[faults] ${writes.length} writes by ${WRITERS} writers in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
          `${acked()} acknowledged, ${retried.length} retried (${writes.reduce((n, w) => n + w.attempts, 0)} requests, ` +
          `${writes.filter((w) => w.replayed).length} answered by a replay); ` +
          `database killed after ${moments.ackedAtDbKill} acks, service after ${moments.ackedAtServiceKill}; ` +
          `failed attempts: ${JSON.stringify(failures)}; stored: ${projects.length - 1} projects + ${deployments.length} deployments`,
      );

      expect(writes).toHaveLength(total);
      expect(retried.length).toBeGreaterThan(0);
      for (const write of writes) {
        // Every write was acknowledged in the end, every answer named the same resource,
        // and that resource is stored exactly once, with nothing else made for the key.
        expect(write.ids.length, write.key).toBe(1);
        expect(byMarker.get(write.marker), write.key).toEqual([write.ids[0]]);
      }
      expect(projects.length - 1 + deployments.length).toBe(total);
    } finally {
      await client.close();
    }
  }, 110_000);
});
