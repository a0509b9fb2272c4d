import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api, ApiResponse } from '../support/api.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser } from '../support/tokens.ts';

// Small timeouts so slow clients are cut quickly in this file (defaults: 10 s and 30 s).
const env = useApiServer({ overrides: { httpHeadersTimeoutMs: 400, httpRequestTimeoutMs: 800 } });
let server: TestServer, api: Api, owner: TestUser, token: string;
beforeAll(() => ({ server, api, owner, adminToken: token } = env));

const projectCount = () => server.repos.projects.collection.countDocuments({ account_id: owner.accountId });

interface RawExchange {
  /** Everything the server sent. */
  text: string;
  /** The server closed the connection before we were done. */
  closedByServer: boolean;
  /** How many of the drip chunks were written before the close. */
  dripped: number;
}

/**
 * A raw TCP conversation: writes `head`, then (optionally) one `drip` chunk every `dripMs`, at most
 * `maxDrips` times, and collects what the server answers until it closes or we give up.
 */
function rawExchange(head: string | Buffer, options: { drip?: string; dripMs?: number; maxDrips?: number; waitMs?: number } = {}): Promise<RawExchange> {
  const { drip, dripMs = 100, maxDrips = 0, waitMs = 5000 } = options;
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.running.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let dripped = 0;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedByServer, dripped });
    };
    const giveUp = setTimeout(() => finish(false), waitMs + dripMs * maxDrips);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (err) => (chunks.length ? finish(true) : reject(err)));
    socket.on('connect', () => {
      socket.write(head);
      if (drip && maxDrips)
        timer = setInterval(() => {
          if (dripped >= maxDrips) return clearInterval(timer);
          dripped++;
          socket.write(drip);
        }, dripMs);
    });
  });
}

/** Status, headers (lower-case names) and JSON body of a raw HTTP/1.1 response. */
function parseResponse(text: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

/** The raw answer is `status` with `code` in the JSON error shape, checked against the document too. */
function expectJsonError(text: string, status: number, code: string) {
  const res = parseResponse(text);
  expect(res.status, text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error: { code, message: expect.any(String), status, request_id: res.headers['x-request-id'] } });
  api.conform('GET', '/edge', { status, headers: new Headers(res.headers), body: res.body, text });
}

describe('server timeouts (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS)', () => {
  it('a client that never finishes its headers gets 408 request_timeout and is cut off', async () => {
    // One more header line every 100 ms, for up to 10 s: far past the 400 ms headers timeout.
    const res = await rawExchange('GET /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\n', { drip: 'X-Slow: 1\r\n', dripMs: 100, maxDrips: 100 });
    expect(res.closedByServer).toBe(true);
    expect(res.dripped).toBeLessThan(100);
    expectJsonError(res.text, 408, 'request_timeout');
  });

  it('a client that never finishes its body gets 408 request_timeout, is cut off, and nothing is stored', async () => {
    const before = await projectCount();
    const head = `POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name":`;
    const res = await rawExchange(head, { drip: ' ', dripMs: 100, maxDrips: 100 });
    expect(res.closedByServer).toBe(true);
    expect(res.dripped).toBeLessThan(100);
    expectJsonError(res.text, 408, 'request_timeout');
    expect(await projectCount()).toBe(before);
  });

  it('the timeouts are settings, validated at start', async () => {
    expect(server.running.server.headersTimeout).toBe(400);
    expect(server.running.server.requestTimeout).toBe(800);
    const { loadConfig } = await import('../../src/config/index.ts');
    expect(loadConfig({ env: { HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '6000' } })).toMatchObject({ httpHeadersTimeoutMs: 5000, httpRequestTimeoutMs: 6000 });
    expect(() => loadConfig({ env: { HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' } })).toThrow(/httpRequestTimeoutMs/);
  });
});

describe('what the HTTP parser refuses is answered in the JSON error shape', () => {
  it('headers over 16 KiB → 431 headers_too_large', async () => {
    const res = await rawExchange(`GET /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expectJsonError(res.text, 431, 'headers_too_large');
    expect(res.closedByServer).toBe(true);
  });

  it.each([
    ['a header line without a colon', 'GET /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n'],
    ['a malformed request line', 'GET\r\n\r\n'],
    ['both Content-Length and a chunked Transfer-Encoding', 'POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'],
  ])('%s → 400 invalid_request', async (_what, raw) => {
    const res = await rawExchange(raw);
    expectJsonError(res.text, 400, 'invalid_request');
  });
});

describe('headers that must appear once', () => {
  it('two Authorization headers → 400 invalid_request, whatever their order; nothing stored', async () => {
    const before = await projectCount();
    for (const pair of [
      [`Bearer ${token}`, 'Bearer slw_not_a_real_key'],
      ['Bearer slw_not_a_real_key', `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const body = JSON.stringify({ name: `dup-${Math.random().toString(36).slice(2)}` });
      const head = `POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\n${pair.map((v) => `Authorization: ${v}\r\n`).join('')}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      const res = await rawExchange(head);
      expectJsonError(res.text, 400, 'invalid_request');
      expect((parseResponse(res.text).body as { error: { message: string } }).error.message).toMatch(/authorization/i);
    }
    expect(await projectCount()).toBe(before);
  });

  it('one Authorization header still works, and two on the token endpoint get an OAuth error', async () => {
    const ok = await rawExchange(`GET /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect(parseResponse(ok.text).status).toBe(200);
    const form = 'grant_type=client_credentials';
    const res = await rawExchange(
      `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic YTpi\r\nAuthorization: Basic Yzpk\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\nConnection: close\r\n\r\n${form}`,
    );
    const parsed = parseResponse(res.text);
    expect(parsed.status).toBe(400);
    expect(parsed.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/authorization/i) });
  });

  it('two Content-Type or Idempotency-Key headers → 400 invalid_request', async () => {
    const body = '{"name":"twice"}';
    for (const extra of ['Content-Type: text/plain\r\n', 'Idempotency-Key: a\r\nIdempotency-Key: b\r\n']) {
      const res = await rawExchange(
        `POST /v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expectJsonError(res.text, 400, 'invalid_request');
    }
  });
});

describe('JSON bodies must be valid Unicode', () => {
  /** POST raw bytes as application/json, checked against the document like every /v1 response. */
  async function postBytes(path: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: bytes });
    const text = await response.text();
    const result: ApiResponse = { status: response.status, headers: response.headers, body: JSON.parse(text), text };
    api.conform('POST', path, result);
    return result;
  }
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

  it.each([
    ['an invalid UTF-8 byte', bytes('{"name":"bad', [0xff], '"}')],
    ['a truncated multi-byte sequence', bytes('{"name":"bad', [0xe2, 0x82], '"}')],
    ['an overlong encoding', bytes('{"name":"bad', [0xc0, 0xaf], '"}')],
    ['a surrogate encoded in UTF-8 bytes (CESU-8)', bytes('{"name":"bad', [0xed, 0xa0, 0x80], '"}')],
    ['a lone high surrogate escape', bytes('{"name":"bad\\ud800"}')],
    ['a lone low surrogate escape', bytes('{"name":"\\udc00bad"}')],
    ['a lone surrogate in a key', bytes('{"name":"ok","\\ud83d":1}')],
  ])('%s → 400 invalid_request, nothing stored', async (_what, body) => {
    const before = await projectCount();
    const res = await postBytes('/v1/projects', body);
    expectRefused(res, 400, 'invalid_request');
    expect(await projectCount()).toBe(before);
  });

  it('valid text is stored exactly: U+FFFD itself, a surrogate pair as escapes and as bytes', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    for (const [body, name] of [
      [bytes(`{"name":"replacement \u{fffd} ${suffix}"}`), `replacement \u{fffd} ${suffix}`],
      [bytes(`{"name":"pair \\ud83d\\ude80 ${suffix}"}`), `pair \u{1f680} ${suffix}`],
      [bytes(`{"name":"bytes \u{1f680} ${suffix}"}`), `bytes \u{1f680} ${suffix}`],
    ] as const) {
      const res = await postBytes('/v1/projects', body);
      expect(res.status, res.text).toBe(201);
      expect(res.body.name).toBe(name);
      expect((await server.repos.projects.collection.findOne({ _id: res.body.id }))?.name).toBe(name);
    }
  });

  it('a gzip-compressed body is still read; an unknown Content-Encoding → 415', async () => {
    const name = `gzip-${Math.random().toString(36).slice(2, 8)}`;
    const res = await postBytes('/v1/projects', gzipSync(JSON.stringify({ name })), { 'content-encoding': 'gzip' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.name).toBe(name);
    const refused = await postBytes('/v1/projects', bytes(JSON.stringify({ name: `${name}-x` })), { 'content-encoding': 'zstd-nope' });
    expectRefused(refused, 415, 'unsupported_media_type');
  });
});
