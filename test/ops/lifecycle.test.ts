import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { reachable as portOpen } from '../../src/db/runtime.ts';
import { runNode, spawnNode, waitFor, type NodeProcess } from '../support/processes.ts';

const started: NodeProcess[] = [];
const temporary: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** `npm start` as a child process: node src/main.ts with only the environment given here. */
async function startSlipway(env: Record<string, string>): Promise<{ proc: NodeProcess; url: string; port: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnNode(['src/main.ts'], { PORT: String(port), PUBLIC_URL: url, LOG_LEVEL: 'info', ...env });
  started.push(proc);
  await waitFor(
    `${url}/readyz to answer 200`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}: ${proc.stderr()}${proc.stdout()}`);
      const response = await fetch(`${url}/readyz`);
      await response.body?.cancel();
      return response.status === 200;
    },
    30_000,
    100,
  );
  return { proc, url, port };
}

/** Pids of FerretDB processes serving a data directory of this file (left over only if a test failed). */
async function ferretdbPidsUnder(dirs: string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('--handler=sqlite') && dirs.some((d) => cmdline.includes(`--state-dir=${d}`))) pids.push(Number(entry));
  }
  return pids;
}

afterEach(async () => {
  // A failed test may leave its server running: stop it the graceful way first, so it stops its FerretDB.
  for (const proc of started.splice(0)) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
    proc.child.kill('SIGTERM');
    await proc.exited(10_000).catch(() => proc.kill());
  }
  for (const pid of await ferretdbPidsUnder(temporary)) process.kill(pid, 'SIGKILL');
});
afterAll(async () => {
  for (const dir of temporary) await rm(dir, { recursive: true, force: true });
});

describe('graceful shutdown', () => {
  it('SIGTERM stops the server within seconds, exit code 0, logging "slipway stopped", despite an idle keep-alive connection', async () => {
    const keysDir = await tempDir('slipway-life-keys-');
    const { proc, url, port } = await startSlipway({ MONGODB_URI: inject('mongodbUri'), MONGODB_DB: `t_life_${randomBytes(4).toString('hex')}`, KEYS_DIR: keysDir, DATA_DIR: await tempDir('slipway-life-data-') });

    // A client holding a keep-alive connection open must not delay shutdown for the grace period (10 s).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode!));
      }).once('error', reject);
    });
    expect(status).toBe(200);
    // The agent parks the socket as free just after the response ends.
    await waitFor('the keep-alive socket to be idle', async () => Object.values(agent.freeSockets).flat().length === 1, 2000, 10);

    const signalled = Date.now();
    proc.child.kill('SIGTERM');
    const exit = await proc.exited(8000);
    agent.destroy();
    const output = `stdout:\n${proc.stdout().slice(-3000)}\nstderr:\n${proc.stderr().slice(-3000)}`;
    expect(exit, output).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(8000);

    const messages = proc.logLines().map((l) => l.msg);
    expect(messages).toContain('slipway listening');
    expect(proc.logLines().find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(messages.at(-1), output).toBe('slipway stopped');
    expect(proc.stderr()).toBe('');
    expect(await portOpen(port)).toBe(false);
  });
});

describe('npm start on the embedded database', () => {
  it('starts FerretDB under DATA_DIR, generates private keys, serves, and stops FerretDB with itself', async () => {
    const dataDir = await tempDir('slipway-embedded-data-');
    const keysDir = path.join(await tempDir('slipway-embedded-keys-'), 'keys');
    const { proc, url } = await startSlipway({ DATA_DIR: dataDir, KEYS_DIR: keysDir });

    const readyz = await fetch(`${url}/readyz`);
    expect(await readyz.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
    const logs = proc.logLines();
    expect(logs.find((l) => l.msg === 'embedded database started')).toMatchObject({ port: expect.any(Number) });
    expect(logs.find((l) => l.msg === 'generated key material')).toMatchObject({ files: ['signing-keys.json', 'cookie-keys.json', 'data-keys.json'] });

    // The database lives in DATA_DIR/ferretdb as SQLite files.
    const sqliteFiles = (await readdir(path.join(dataDir, 'ferretdb'))).filter((f) => f.endsWith('.sqlite'));
    expect(sqliteFiles).toContain('slipway.sqlite');
    const handle = await open(path.join(dataDir, 'ferretdb', 'slipway.sqlite'));
    const header = Buffer.alloc(16);
    await handle.read(header, 0, 16, 0);
    await handle.close();
    expect(header.toString('latin1')).toBe('SQLite format 3\0');

    // Keys were generated, readable by the owner only.
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    for (const file of ['signing-keys.json', 'cookie-keys.json', 'data-keys.json']) {
      expect((await stat(path.join(keysDir, file))).mode & 0o777, file).toBe(0o600);
    }
    const jwks = (await (await fetch(`${url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const signing = JSON.parse(await readFile(path.join(keysDir, 'signing-keys.json'), 'utf8')) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(signing.keys.map((k) => k.kid));

    // The endpoint file points at the running FerretDB, and the CLI reuses it rather than starting another.
    const ferretPort = Number((await readFile(path.join(dataDir, '.ferretdb-endpoint'), 'utf8')).trim());
    expect(ferretPort).toBeGreaterThan(0);
    expect(await portOpen(ferretPort)).toBe(true);
    const migrate = await runNode(['bin/slipway.js', 'db', 'migrate', '--json'], { DATA_DIR: dataDir, KEYS_DIR: keysDir, LOG_LEVEL: 'info' });
    expect(migrate.code).toBe(0);
    expect(migrate.stderr).not.toContain('embedded database started');
    expect(JSON.parse(migrate.stdout)).toMatchObject({ ok: true });

    proc.child.kill('SIGTERM');
    expect(await proc.exited(15_000)).toEqual({ code: 0, signal: null });
    expect(proc.logLines().at(-1)?.msg).toBe('slipway stopped');
    expect(await portOpen(ferretPort)).toBe(false);
    expect(existsSync(path.join(dataDir, '.ferretdb-endpoint'))).toBe(false);
  });
});
