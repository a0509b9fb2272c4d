import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';
import { waitFor } from '../support/processes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { realWaits } from '../support/realWaits.ts';

/*
 * "What was seen" #2: while the database is unreachable every request answers 503 service_unavailable
 * with Retry-After within 2 s (it took up to 15 s), /readyz within its own 2 s, and the service
 * recovers by itself once the database is back. The database here is a FerretDB of the test's own,
 * killed with SIGKILL.
 *
 * A database that hangs with its connections open (SIGSTOP) cannot be told from a slow one at first
 * (#8: a loaded FerretDB took 3.7 s to answer the driver's check): it is waited for up to
 * MONGODB_CONNECT_TIMEOUT_MS (3 s here, 10 s by default), then declared down and answered 503; one that
 * resumes before that was only slow, and every request made meanwhile succeeds.
 */
const BOUND_MS = 2000;
const CONNECT_TIMEOUT_MS = 3000;
let dir: string, binary: string, db: EmbeddedDatabase, server: TestServer, token: string, project: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-outage-'));
  binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION);
  db = await startFerretdb({ binary, dataDir: dir });
  server = await startTestServer({ overrides: { mongodbUri: db.uri, mongodbConnectTimeoutMs: CONNECT_TIMEOUT_MS } });
  const tokens = new Tokens(server);
  token = await tokens.accessToken(await tokens.user('owner'), 'admin');
  project = (await call('POST', '/v1/projects', { name: 'outage' })).body.id!;
}, 60_000);

afterAll(async () => {
  await server?.stop().catch(() => undefined);
  await db?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Body {
  id?: string;
  error?: { code: string };
  checks?: { database: string };
}

interface Answer {
  status: number;
  body: Body;
  headers: Headers;
  ms: number;
}

/** One request, abandoned (and the test failed) if it takes longer than the bound. */
async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}, boundMs = BOUND_MS): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : null,
    signal: AbortSignal.timeout(boundMs),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : {}, headers: res.headers, ms: Math.round(performance.now() - started) };
}

describe('database unreachable (kill -9)', () => {
  it('every request answers 503 with Retry-After within 2 s, /readyz 503 within its timeout; recovery without a restart', async () => {
    expect((await call('GET', '/readyz')).status).toBe(200);
    await db.kill();

    const requests: [string, string, unknown?, Record<string, string>?][] = [
      ['GET', '/v1/projects'],
      ['GET', `/v1/projects/${project}`],
      ['POST', '/v1/projects', { name: 'during-outage' }],
      ['POST', `/v1/projects/${project}/deployments`, { environment: 'production', branch: 'main' }, { 'idempotency-key': 'outage-1' }],
      ['PATCH', `/v1/projects/${project}`, { deploy_target: 'fly' }],
      ['GET', '/v1/users/me'],
    ];
    const figures: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const [method, url, body, headers] of requests) {
        const res = await call(method, url, body, headers);
        figures.push(`${method} ${url.replace(project, ':id')} ${res.status} ${res.ms} ms`);
        expect(res.status, `${method} ${url}`).toBe(503);
        expect(res.body.error?.code).toBe('service_unavailable');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const ready = await call('GET', '/readyz');
      figures.push(`GET /readyz ${ready.status} ${ready.ms} ms`);
      expect(ready.status).toBe(503);
      expect(ready.body.checks?.database).toBe('unreachable');
    }
    console.log(`[outage] answers while the database is down:\n  ${figures.join('\n  ')}`);

    // The same data directory and port: the service reconnects by itself.
    db = await startFerretdb({ binary, dataDir: dir, port: db.port });
    await waitFor('the service to recover', async () => (await call('GET', '/readyz')).status === 200, 20_000, 200);
    expect((await call('GET', `/v1/projects/${project}`)).status).toBe(200);
    // The write the outage refused can be retried with its key and runs once.
    const retried = await call('POST', `/v1/projects/${project}/deployments`, { environment: 'production', branch: 'main' }, { 'idempotency-key': 'outage-1' });
    expect(retried.status).toBe(201);
    const again = await call('POST', `/v1/projects/${project}/deployments`, { environment: 'production', branch: 'main' }, { 'idempotency-key': 'outage-1' });
    expect(again.body.id).toBe(retried.body.id);
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project })).toBe(1);
  }, 60_000);

  /** SIGSTOP, once the kernel reports every thread of FerretDB stopped (delivery is asynchronous). */
  async function pause(): Promise<void> {
    process.kill(db.pid, 'SIGSTOP');
    const pid = db.pid;
    await waitFor('FerretDB to be stopped', async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '').startsWith('T'), 5_000, 10);
  }

  it('a database that hangs for good (SIGSTOP, connections left open): 503 once the driver check times out, and recovery when it resumes', async () => {
    await waitFor('the service to be ready', async () => (await call('GET', '/readyz')).status === 200, 20_000, 200);
    await pause();
    try {
      // Bound: the check's timeout, the 0.5 s between checks and the 1 s of server selection, plus
      // slack for a loaded machine (about 3.3 s measured alone).
      const bound = CONNECT_TIMEOUT_MS + 5000;
      const figures: string[] = [];
      const answers = await Promise.all(
        (
          [
            ['GET', `/v1/projects/${project}`],
            ['PATCH', `/v1/projects/${project}`, { deploy_target: 'aws' }],
            ['GET', '/v1/projects'],
          ] as const
        ).map(async ([method, url, body]) => {
          const res = await call(method, url, body, {}, bound);
          figures.push(`${method} ${url.replace(project, ':id')} ${res.status} ${res.ms} ms`);
          return res;
        }),
      );
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.body.error?.code).toBe('service_unavailable');
      }
      // Declared down now: the next requests and /readyz answer within 2 s.
      const again = await call('GET', `/v1/projects/${project}`);
      figures.push(`GET /v1/projects/:id (after) ${again.status} ${again.ms} ms`);
      expect(again.status).toBe(503);
      const ready = await call('GET', '/readyz');
      figures.push(`GET /readyz ${ready.status} ${ready.ms} ms`);
      expect(ready.status).toBe(503);
      console.log(`[outage] answers while the database hangs (declared down after ${CONNECT_TIMEOUT_MS} ms without an answer):\n  ${figures.join('\n  ')}`);
    } finally {
      process.kill(db.pid, 'SIGCONT');
    }
    await waitFor('the service to recover', async () => (await call('GET', `/v1/projects/${project}`)).status === 200, 20_000, 200);
  }, 60_000);

  it('a database that pauses for less than the check timeout is only slow: every request made meanwhile succeeds, writes included', async () => {
    await waitFor('the service to be ready', async () => (await call('GET', '/readyz')).status === 200, 20_000, 200);
    const pool: string[] = [];
    const onCleared = () => pool.push('cleared');
    server.running.container.database.client.on('connectionPoolCleared', onCleared);
    await pause();
    const names = Array.from({ length: 10 }, (_, i) => `paused-${i}-${Date.now()}`);
    const pending = [
      ...names.map((name) => call('POST', '/v1/projects', { name }, {}, 20_000)),
      ...Array.from({ length: 10 }, () => call('GET', `/v1/projects/${project}`, undefined, {}, 20_000)),
    ];
    const ready = call('GET', '/readyz', undefined, {}, 20_000);
    await realWaits.outage(CONNECT_TIMEOUT_MS / 2);
    process.kill(db.pid, 'SIGCONT');
    const answers = await Promise.all(pending);
    server.running.container.database.client.off('connectionPoolCleared', onCleared);
    console.log(`[outage] a ${CONNECT_TIMEOUT_MS / 2} ms pause: statuses ${answers.map((a) => a.status).join(' ')}, slowest ${Math.max(...answers.map((a) => a.ms))} ms`);
    expect(answers.map((a) => a.status)).toEqual([...names.map(() => 201), ...Array.from({ length: 10 }, () => 200)]);
    expect(pool).toEqual([]);
    // /readyz waited its 2 s, found the server slow but still reachable: ready.
    const readiness = await ready;
    expect(readiness.status).toBe(200);
    expect(['ok', 'slow']).toContain(readiness.body.checks?.database);
    expect(await server.repos.projects.collection.countDocuments({ name: { $in: names } })).toBe(names.length);
  }, 60_000);
});
