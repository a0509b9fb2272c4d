import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { databaseHosts, describeStartupFailure, EXIT, ListenError } from '../../src/startupFailure.ts';
import { runNode, spawnNode, waitFor, stoppedAfterEach } from '../support/processes.ts';
import { tempDir } from '../support/tempDirs.ts';

/**
 * The first minutes of `npm start` (node src/main.ts, exactly as npm runs it): what the log says first,
 * what `/` answers, and how a start that cannot succeed says why: one line naming the setting, a
 * distinct exit code per class, the stack only with SLIPWAY_DEBUG=1.
 */
const started = stoppedAfterEach();

const freshDatabase = () => ({ MONGODB_URI: inject('mongodbUri'), MONGODB_DB: `t_start_${randomBytes(4).toString('hex')}`, KEYS_DIR: tempDir('slipway-start-keys-'), DATA_DIR: tempDir('slipway-start-data-') });
/** A stack trace line, as Node prints one. */
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

describe('the start log and the root address', () => {
  it('names the dashboard and the next step before anything else of the server, the /metrics note after, as info; / redirects to the dashboard', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = spawnNode(['src/main.ts'], { PORT: String(port), LOG_LEVEL: 'info', ...freshDatabase() });
    started.push(proc);
    await waitFor('the server to answer /readyz', async () => {
      if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}: ${proc.stderr()}`);
      const response = await fetch(`${url}/readyz`).catch(() => undefined);
      await response?.body?.cancel();
      return response?.status === 200;
    });
    await waitFor('the start log', async () => proc.logLines().some((l) => String(l.msg).startsWith('/metrics is off')));

    const lines = proc.logLines();
    const at = (test: (msg: string) => boolean) => lines.findIndex((l) => test(String(l.msg)));
    const listening = at((m) => m === 'slipway listening');
    const next = at((m) => m.startsWith('next: '));
    const metricsNote = at((m) => m.startsWith('/metrics is off'));
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(lines[listening]).toMatchObject({ url, dashboard: `${url}/dashboard` });
    expect(next).toBe(listening + 1);
    // A new database has no user: the next step is the command that makes the first one.
    expect(lines[next]!.msg).toContain('npx slipway users create --email you@example.com --name You --role owner');
    expect(lines[next]!.msg).toContain(`${url}/dashboard`);
    expect(metricsNote).toBeGreaterThan(next);
    expect(lines[metricsNote]).toMatchObject({ level: 30 });
    expect(lines[metricsNote]!.msg).toContain('(the default)');
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);

    for (const method of ['GET', 'HEAD'] as const) {
      const root = await fetch(`${url}/`, { method, redirect: 'manual' });
      await root.body?.cancel();
      expect(root.status, method).toBe(302);
      expect(root.headers.get('location')).toBe(`${url}/dashboard`);
    }
    // ... and the dashboard sends someone without a session on to the sign-in (not a JSON 404).
    const dashboard = await fetch(`${url}/dashboard`, { redirect: 'manual' });
    await dashboard.body?.cancel();
    expect([302, 303]).toContain(dashboard.status);
    expect(dashboard.headers.get('location')).toMatch(/\/(dashboard\/login|oauth\/authorize)/);
    // Anything else still answers the JSON 404.
    const other = await fetch(`${url}/nothing-here`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('a start that cannot succeed', () => {
  it('MONGODB_URI of a server that is not there: one line naming MONGODB_URI and the fix, exit 4, no stack; the stack with SLIPWAY_DEBUG=1', async () => {
    const port = await freePort();
    const env = { PORT: String(port), MONGODB_URI: `mongodb://slipway:hunter2secret@127.0.0.1:${await freePort()}/`, KEYS_DIR: tempDir('slipway-start-keys-'), LOG_LEVEL: 'info' };
    const plain = await runNode(['src/main.ts'], env, 30_000);
    expect(plain.code, plain.stderr).toBe(EXIT.database);
    const stderrLines = plain.stderr.trim().split('\n');
    expect(stderrLines).toHaveLength(1);
    expect(stderrLines[0]).toMatch(/^slipway: cannot reach the database at 127\.0\.0\.1:\d+ .*check MONGODB_URI/);
    expect(plain.stderr).not.toMatch(STACK_LINE);
    expect(plain.stderr + plain.stdout).not.toContain('hunter2secret');
    // A log collector gets the class and the setting as one JSON line, without a stack.
    const fatal = plain.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 60);
    expect(fatal).toMatchObject({ msg: 'slipway failed to start', code: 'database_unreachable', setting: 'MONGODB_URI', exit_code: EXIT.database });
    expect(fatal).not.toHaveProperty('err');

    const debug = await runNode(['src/main.ts'], { ...env, SLIPWAY_DEBUG: '1' }, 30_000);
    expect(debug.code).toBe(EXIT.database);
    expect(debug.stderr).toMatch(STACK_LINE);
    expect(debug.stderr).toMatch(/^slipway: cannot reach the database/m);
  });

  it('PORT already taken: one line naming PORT and the fix, exit 5', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runNode(['src/main.ts'], { PORT: String(port), LOG_LEVEL: 'info', ...freshDatabase() }, 30_000);
      expect(result.code, result.stderr).toBe(EXIT.listen);
      expect(result.stderr.trim().split('\n')).toEqual([
        `slipway: cannot listen on 127.0.0.1:${port} (PORT): another process is using that port; set PORT to a free one (e.g. PORT=3001 npm start), or stop the other process.`,
      ]);
      expect(result.stdout).not.toContain('slipway listening');
    } finally {
      blocker.close();
    }
  });

  it('METRICS_LISTEN already taken names METRICS_LISTEN, exit 5', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as net.AddressInfo).port;
    try {
      const result = await runNode(['src/main.ts'], { PORT: String(await freePort()), METRICS_LISTEN: `127.0.0.1:${taken}`, LOG_LEVEL: 'warn', ...freshDatabase() }, 30_000);
      expect(result.code, result.stderr).toBe(EXIT.listen);
      expect(result.stderr.trim()).toMatch(new RegExp(`^slipway: cannot listen on 127\\.0\\.0\\.1:${taken} \\(METRICS_LISTEN\\).*set METRICS_LISTEN to a free host:port\\.$`));
    } finally {
      blocker.close();
    }
  });

  it('an embedded database that cannot start (DATA_DIR is a file): one line naming DATA_DIR, exit 3', async () => {
    const notADirectory = path.join(tempDir('slipway-start-data-'), 'a-file');
    writeFileSync(notADirectory, 'not a directory');
    const result = await runNode(['src/main.ts'], { PORT: String(await freePort()), LOG_LEVEL: 'info', KEYS_DIR: tempDir('slipway-start-keys-'), DATA_DIR: notADirectory }, 60_000);
    expect(result.code, result.stderr).toBe(EXIT.embeddedDatabase);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^slipway: the embedded database could not be started: .*\\(DATA_DIR=${notADirectory.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): check that DATA_DIR is writable`));
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('unreadable key material: one line naming KEYS_DIR and the file, exit 6; the CLI says the same with the code key_material_invalid', async () => {
    const env = { PORT: String(await freePort()), LOG_LEVEL: 'info', ...freshDatabase() };
    writeFileSync(path.join(env.KEYS_DIR, 'signing-keys.json'), '{"keys": [');
    const result = await runNode(['src/main.ts'], env, 30_000);
    expect(result.code, result.stderr).toBe(EXIT.keys);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^slipway: could not read .*signing-keys\.json: .* \(KEYS_DIR\): fix or restore those files/);

    const cli = await runNode(['bin/slipway.js', 'keys', 'material', '--json'], { MONGODB_URI: env.MONGODB_URI, MONGODB_DB: env.MONGODB_DB, KEYS_DIR: env.KEYS_DIR, LOG_LEVEL: 'warn' });
    expect(cli.code).toBe(EXIT.keys);
    expect(JSON.parse(cli.stderr)).toMatchObject({ error: { code: 'key_material_invalid', message: expect.stringContaining('KEYS_DIR') } });
  });

  it("the admin CLI's --json error for an unreachable database has its own code and exit code, and no stack", async () => {
    const result = await runNode(['bin/slipway.js', 'users', 'list', '--json'], { MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/`, KEYS_DIR: tempDir('slipway-start-keys-'), LOG_LEVEL: 'warn' });
    expect(result.code).toBe(EXIT.database);
    const body = JSON.parse(result.stderr) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('database_unreachable');
    expect(body.error.message).toContain('MONGODB_URI');
    expect(result.stderr).not.toMatch(STACK_LINE);
    const human = await runNode(['bin/slipway.js', 'users', 'list'], { MONGODB_URI: `mongodb://127.0.0.1:${await freePort()}/`, KEYS_DIR: tempDir('slipway-start-keys-'), LOG_LEVEL: 'warn' });
    expect(human.stderr.trim().split('\n')).toHaveLength(1);
    expect(human.stderr).toMatch(/^slipway: cannot reach the database/);
  });
});

describe('classifying failures', () => {
  it('names HOST for an address this machine does not have, and an unforeseen error is exit 1 with the way to see its stack', () => {
    const notHere = new ListenError('HOST', '192.0.2.1:3000', Object.assign(new Error('listen EADDRNOTAVAIL'), { code: 'EADDRNOTAVAIL' }));
    expect(describeStartupFailure(notHere, undefined)).toMatchObject({ code: 'address_unavailable', setting: 'HOST', exit: EXIT.listen });
    expect(describeStartupFailure(notHere, undefined).message).toContain('no interface of this machine has that address');
    expect(describeStartupFailure(new TypeError('boom'), undefined)).toEqual({ code: 'internal_error', message: 'boom (SLIPWAY_DEBUG=1 shows the stack)', exit: EXIT.failed });
    expect(new Set(Object.values(EXIT)).size).toBe(Object.keys(EXIT).length);
  });

  it('shows where it tried to connect, never the credentials', () => {
    expect(databaseHosts('mongodb://app:s3cret@db1:27017,db2:27017/slipway?replicaSet=rs0')).toBe('db1:27017,db2:27017');
    expect(databaseHosts('mongodb+srv://app:s3cret@cluster.example.net/')).toBe('cluster.example.net');
    expect(databaseHosts(undefined)).toBe('the embedded database');
  });
});
