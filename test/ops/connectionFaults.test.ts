import net from 'node:net';
import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { waitFor } from '../support/processes.ts';

/**
 * A connection to the database that fails under a request (a database crashing mid-write, a socket the
 * other side ended: EPIPE) answers 503 with Retry-After on every surface — /v1, the token endpoint, the
 * dashboard — never 500. The server reaches the run's database through a TCP relay the test can cut.
 */

/** The error Node gives a write to a socket its peer has ended ("This socket has been ended by the other party"). */
async function realEpipe(): Promise<Error> {
  const server = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    return await new Promise<Error>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', resolve);
      // Node hands the failure to the write's callback, not to an 'error' event: a caller that only
      // listens for events (or a driver that passes the callback's error on as it is) sees a plain Error.
      socket.on('end', () => setImmediate(() => socket.write('after the end', (err) => err && resolve(err))));
    });
  } finally {
    server.close();
  }
}

describe('isDatabaseUnavailable', () => {
  it('is true for connection-level failures, whichever class carries them, and false for answers the database gave', async () => {
    const epipe = await realEpipe();
    expect((epipe as NodeJS.ErrnoException).code).toBe('EPIPE');
    expect(epipe.message).toContain('ended by the other party');
    const unavailable: unknown[] = [
      epipe,
      new Error('write failed', { cause: epipe }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'),
      new MongoServerSelectionError('Server selection timed out after 2000 ms', { type: 'Unknown', servers: new Map() } as never),
      new MongoServerError({ code: 11600, errmsg: 'interrupted at shutdown' }),
      new MongoServerError({ code: 91, errmsg: 'The server is in quiesce mode and will shut down' }),
      // An insertMany (a claim with its successor, batched DPoP claims) whose connection closed mid-write.
      new MongoBulkWriteError(new MongoNetworkError('connection 17 to 127.0.0.1:27017 closed') as never, {} as never),
    ];
    for (const err of unavailable) expect(isDatabaseUnavailable(err), String(err)).toBe(true);
    const answered: unknown[] = [
      new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' }),
      new MongoServerError({ code: 2, errmsg: 'BadValue' }),
      new MongoBulkWriteError({ message: 'E11000 duplicate key error', code: 11000, writeErrors: [] } as never, {} as never),
      new Error('something else'),
      Object.assign(new Error('no such file'), { code: 'ENOENT' }),
      undefined,
      'EPIPE',
    ];
    for (const err of answered) expect(isDatabaseUnavailable(err), String(err)).toBe(false);
  });
});

/** A TCP relay to the database that can be cut: open connections are ended (FIN, then EPIPE on write) and new ones closed. */
class Relay {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  cut = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = net.createServer((client) => {
      client.on('error', () => undefined);
      if (this.cut) return client.end();
      const upstream = net.connect(target.port, target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
  }

  /** Ends every open connection the way a crashing database does (its side closes), and refuses new ones. */
  breakAll(): void {
    this.cut = true;
    for (const s of this.#sockets) s.end();
  }

  close(): void {
    this.#server.close();
    for (const s of this.#sockets) s.destroy();
  }
}

let relay: Relay, server: TestServer, token: string, refreshToken: string, clientId: string, projectId: string;

beforeAll(async () => {
  const target = new URL(inject('mongodbUri'));
  relay = new Relay({ host: target.hostname, port: Number(target.port) });
  await relay.listen();
  const viaRelay = new URL(inject('mongodbUri'));
  viaRelay.port = String(relay.port);
  server = await startTestServer({ overrides: { mongodbUri: viaRelay.toString(), mongodbTimeoutMs: 1500 } });
  const tokens = new Tokens(server);
  const owner = await tokens.user('owner');
  const issued = await tokens.forUser(owner, 'admin', { withRefresh: true });
  token = issued.access_token;
  refreshToken = issued.refresh_token!;
  clientId = issued.clientId;
  const res = await fetch(`${server.url}/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'faults' }) });
  projectId = ((await res.json()) as { id: string }).id;
}, 60_000);

afterAll(async () => {
  if (relay) relay.cut = false;
  await server?.stop().catch(() => undefined);
  relay?.close();
});

interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  body: string;
}

async function attempt(what: string, path: string, init: RequestInit): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(20_000) });
  return { what, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

const json = { authorization: '', 'content-type': 'application/json' };

describe('the database connection fails under requests', () => {
  it('every /v1, token endpoint and dashboard request answers 503 with Retry-After (or succeeds), never 500; then it recovers', async () => {
    const requests = (round: number) => [
      ...Array.from({ length: 6 }, (_, i) =>
        attempt('create deployment', `/v1/projects/${projectId}/deployments`, { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ environment: 'production', branch: `b${round}-${i}` }) }),
      ),
      ...Array.from({ length: 4 }, () => attempt('list projects', '/v1/projects', { headers: { authorization: `Bearer ${token}` } })),
      ...Array.from({ length: 3 }, () =>
        attempt('refresh', '/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
        }),
      ),
      attempt('dashboard sign-in page', '/dashboard/login', {}),
    ];
    // The cut lands while the requests are in flight, and stays for a second round.
    const inFlight = requests(1);
    relay.breakAll();
    const answers = [...(await Promise.all(inFlight)), ...(await Promise.all(requests(2)))];
    const failures = answers.filter((a) => a.status >= 500);
    expect(failures.length, 'some requests met the cut').toBeGreaterThan(0);
    for (const a of answers) {
      expect(a.status, `${a.what}: ${a.status} ${a.body.slice(0, 300)}`).not.toBe(500);
      if (a.status >= 500) {
        expect(a.status, a.what).toBe(503);
        expect(a.retryAfter, a.what).toMatch(/^\d+$/);
      }
    }
    const tokenFailure = answers.find((a) => a.what === 'refresh' && a.status === 503);
    if (tokenFailure) expect(JSON.parse(tokenFailure.body).error).toBe('temporarily_unavailable');
    const apiFailure = answers.find((a) => a.what !== 'refresh' && a.what !== 'dashboard sign-in page' && a.status === 503);
    if (apiFailure) expect(JSON.parse(apiFailure.body).error.code).toBe('service_unavailable');

    relay.cut = false;
    await waitFor('the service to reach the database again', async () => (await attempt('list projects', '/v1/projects', { headers: { authorization: `Bearer ${token}` } })).status === 200, 30_000, 200);
  });
});
