import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb } from '../../src/db/embeddedFerretdb.ts';
import { Api } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import { startAnotherInstance, startTestServer, type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, token: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: token } = env));

const projectCount = () => server.repos.projects.collection.countDocuments({ account_id: owner.accountId });
let n = 0;
const name = () => `req-${++n}-${Math.random().toString(36).slice(2, 8)}`;

describe('request bodies (docs/product.md §6)', () => {
  it('malformed JSON → 400 invalid_request, nothing stored', async () => {
    const before = await projectCount();
    for (const rawBody of ['{"name": ', '{name: "x"}', '"just a string"', '42', 'null']) {
      const res = await api.post('/v1/projects', { token, rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, rawBody).toBe(400);
      expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.any(String), status: 400, request_id: res.headers.get('x-request-id') });
    }
    expect(await projectCount()).toBe(before);
  });

  it('a JSON array is not an object → 422', async () => {
    const res = await api.post('/v1/projects', { token, rawBody: '[]', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('non-JSON bodies → 415 unsupported_media_type on POST and PATCH', async () => {
    const before = await projectCount();
    const cases: [string, string][] = [
      ['text/plain', JSON.stringify({ name: name() })],
      ['application/x-www-form-urlencoded', 'name=form'],
      ['application/xml', '<name>x</name>'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--'],
    ];
    for (const [type, rawBody] of cases) {
      const res = await api.post('/v1/projects', { token, rawBody, headers: { 'content-type': type } });
      expect(res.status, type).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
    const project = await api.post('/v1/projects', { token, body: { name: name() } });
    const patch = await api.patch(`/v1/projects/${project.body.id}`, { token, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(patch.status).toBe(415);
    expect(await projectCount()).toBe(before + 1);
  });

  it('application/json with a charset is accepted; other JSON flavours and charsets are not', async () => {
    const res = await api.post('/v1/projects', { token, rawBody: JSON.stringify({ name: name() }), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(201);
    for (const type of ['application/merge-patch+json', 'application/json; charset=utf-16']) {
      const refused = await api.post('/v1/projects', { token, rawBody: JSON.stringify({ name: name() }), headers: { 'content-type': type } });
      expect(refused.status, type).toBe(415);
    }
  });

  it('bodies over 100 KiB → 413 payload_too_large, nothing stored; just under is parsed', async () => {
    const before = await projectCount();
    const huge = JSON.stringify({ name: 'big', padding: 'x'.repeat(200 * 1024) });
    const res = await api.post('/v1/projects', { token, rawBody: huge, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    const under = JSON.stringify({ name: 'big', padding: 'x'.repeat(100 * 1024 - 40) });
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(100 * 1024);
    const parsed = await api.post('/v1/projects', { token, rawBody: under, headers: { 'content-type': 'application/json' } });
    expect(parsed.status).toBe(422); // read and validated: `padding` is not a field
    expect(parsed.body.error.details).toEqual([{ field: 'padding', message: 'is not a recognised field' }]);
    expect(await projectCount()).toBe(before);
  });

  it('an empty POST body is an empty object: the schema names what is missing', async () => {
    const res = await api.post('/v1/projects', { token });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ field: 'name', message: expect.any(String) }]);
  });
});

describe('paths and methods', () => {
  it.each(['/v1', '/v1/', '/v1/nope', '/v1/projects/proj_01m7yyc0xe4c7t8c5f3e5w1w1e/nothing', '/v2/projects', '/v0/projects', '/api/v1/projects'])(
    '%s → JSON 404 not_found',
    async (path) => {
      const res = await api.get(path, { token });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error).toEqual({ code: 'not_found', message: expect.any(String), status: 404, request_id: res.headers.get('x-request-id') });
    },
  );

  it('a known path with another method → 405 method_not_allowed with Allow', async () => {
    const project = await api.post('/v1/projects', { token, body: { name: name() } });
    const cases: [string, string, string[]][] = [
      ['DELETE', '/v1/projects', ['GET', 'POST']],
      ['PUT', '/v1/projects', ['GET', 'POST']],
      ['PUT', `/v1/projects/${project.body.id}`, ['GET', 'PATCH', 'DELETE']],
      ['POST', `/v1/projects/${project.body.id}`, ['GET', 'PATCH', 'DELETE']],
      ['DELETE', `/v1/projects/${project.body.id}/deployments`, ['GET', 'POST']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await api.request(method, path, { token });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      const allow = res.headers.get('allow')!.split(/,\s*/);
      for (const m of allowed) expect(allow).toContain(m);
    }
  });

  it('HEAD works like GET without a body', async () => {
    const res = await fetch(`${server.url}/v1/projects`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('unknown query parameters on lists → 400 (a misspelt filter is not silently ignored)', async () => {
    const res = await api.get('/v1/projects?pagesize=5', { token });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'pagesize', message: 'is not a recognised field' }]);
  });

  it('every response carries X-Request-Id (an incoming well-formed one is honoured)', async () => {
    const res = await api.get('/v1/projects', { token, headers: { 'x-request-id': 'trace-0123456789' } });
    expect(res.headers.get('x-request-id')).toBe('trace-0123456789');
    const err = await api.get('/v1/nope', { headers: { 'x-request-id': 'trace-abcdefghij' } });
    expect(err.body.error.request_id).toBe('trace-abcdefghij');
  });
});

describe('Idempotency-Key on POST', () => {
  it('the same key and body replays the first response and creates nothing new', async () => {
    const key = `key-${name()}`;
    const body = { name: name(), deploy_target: 'aws' };
    const first = await api.post('/v1/projects', { token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const before = await projectCount();
    // Same body with another key order and spacing is the same request.
    const rawBody = `{ "deploy_target": "aws",   "name": ${JSON.stringify(body.name)} }`;
    const second = await api.post('/v1/projects', { token, rawBody, headers: { 'idempotency-key': key, 'content-type': 'application/json' } });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await projectCount()).toBe(before);
  });

  it('the same key with a different body → 422 idempotency_key_reused, nothing created', async () => {
    const key = `key-${name()}`;
    expect((await api.post('/v1/projects', { token, body: { name: name() }, headers: { 'idempotency-key': key } })).status).toBe(201);
    const before = await projectCount();
    const res = await api.post('/v1/projects', { token, body: { name: name() }, headers: { 'idempotency-key': key } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('idempotency_key_reused');
    expect(await projectCount()).toBe(before);
  });

  it('a concurrent double submit creates exactly one object and both get it', async () => {
    for (let round = 0; round < 3; round++) {
      const key = `key-${name()}`;
      const body = { name: name() };
      const before = await projectCount();
      const results = await Promise.all([0, 1, 2].map(() => api.post('/v1/projects', { token, body, headers: { 'idempotency-key': key } })));
      expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(await projectCount()).toBe(before + 1);
    }
  });

  it('works for deployments too, and keys are per credential', async () => {
    const project = await api.post('/v1/projects', { token, body: { name: name() } });
    const path = `/v1/projects/${project.body.id}/deployments`;
    const body = { environment: 'production', branch: 'main' };
    const key = 'deploy-once';
    const [a, b] = await Promise.all([api.post(path, { token, body, headers: { 'idempotency-key': key } }), api.post(path, { token, body, headers: { 'idempotency-key': key } })]);
    expect(a.body.id).toBe(b.body.id);
    const colleague = await tokens.user('developer', owner.accountId);
    const other = await api.post(path, { token: await tokens.accessToken(colleague, 'write'), body, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(a.body.id);
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project.body.id })).toBe(2);
  });

  it('a failed request is not remembered: retrying with the key runs it again', async () => {
    const key = `key-${name()}`;
    const taken = name();
    await api.post('/v1/projects', { token, body: { name: taken } });
    const project = await api.post('/v1/projects', { token, body: { name: name() } });
    await api.patch(`/v1/projects/${project.body.id}`, { token, body: { status: 'paused' } });
    const path = `/v1/projects/${project.body.id}/deployments`;
    const body = { environment: 'production', branch: 'main' };
    const refused = await api.post(path, { token, body, headers: { 'idempotency-key': key } });
    expect(refused.status).toBe(409);
    await api.patch(`/v1/projects/${project.body.id}`, { token, body: { status: 'active' } });
    const retried = await api.post(path, { token, body, headers: { 'idempotency-key': key } });
    expect(retried.status).toBe(201);
  });

  it('an unusable key → 400 invalid_request', async () => {
    const res = await api.post('/v1/projects', { token, body: { name: name() }, headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });
});

describe('rate limits (kept in MongoDB, shared by instances)', () => {
  let limited: TestServer;
  let twin: TestServer;
  let limitedApi: Api;
  let twinApi: Api;
  const LIMIT = 6;

  beforeAll(async () => {
    limited = await startTestServer({ overrides: { apiRateLimitPerHour: LIMIT } });
    // A second instance on the same database and keys: the count is shared.
    twin = await startAnotherInstance(limited, { apiRateLimitPerHour: LIMIT });
    [limitedApi, twinApi] = await Promise.all([Api.connect(limited.url), Api.connect(twin.url)]);
  });
  afterAll(async () => {
    await twin?.stop();
    await limited?.stop();
  });

  it(`after ${LIMIT} requests per credential per hour → 429 rate_limited with Retry-After; headers on every response`, async () => {
    const t = new Tokens(limited);
    const user = await t.user('owner');
    const a = await t.accessToken(user, 'read');
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await (i % 2 ? twinApi : limitedApi).get('/v1/projects', { token: a });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(LIMIT));
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    for (const client of [limitedApi, twinApi]) {
      const res = await client.get('/v1/projects', { token: a });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      const retry = Number(res.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(3600);
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('ratelimit-reset'))).toBe(retry);
    }
    // Another credential has its own budget.
    const other = await t.accessToken(await t.user('owner'), 'read');
    expect((await limitedApi.get('/v1/projects', { token: other })).status).toBe(200);
  });

  it('far from the limit, one insert admits a block of requests; the limit itself is exact', async () => {
    const LARGE = 500;
    const roomy = await startTestServer({ overrides: { apiRateLimitPerHour: LARGE } });
    try {
      const roomyApi = await Api.connect(roomy.url);
      const t = new Tokens(roomy);
      const token = await t.accessToken(await t.user('owner'), 'read');
      const remaining: number[] = [];
      for (let i = 0; i < LARGE; i++) {
        const res = await roomyApi.get('/v1/projects', { token });
        expect(res.status).toBe(200);
        remaining.push(Number(res.headers.get('ratelimit-remaining')));
      }
      expect(remaining).toEqual(Array.from({ length: LARGE }, (_, i) => LARGE - 1 - i));
      const over = await roomyApi.get('/v1/projects', { token });
      expect(over.status).toBe(429);
      // Blocks of 5 up to 450, then single shares: 90 + 50 inserts for 500 requests.
      const shares = await roomy.repos.rateLimits.collection.countDocuments({ _id: { $regex: '^api:access_token:.*:s\\d+$' } });
      expect(shares).toBe(90 + 50);
    } finally {
      await roomy.stop();
    }
  });

  it('requests without a usable credential are counted per client address', async () => {
    let last = 0;
    for (let i = 0; i < LIMIT + 1; i++) last = (await limitedApi.get('/v1/projects')).status;
    expect(last).toBe(429);
  });
});

describe('database unreachable', () => {
  it('→ 503 service_unavailable with Retry-After and no internals', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-v1-down-'));
    const db = await startFerretdb({ binary: await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION), dataDir: dir });
    const lonely = await startTestServer({ overrides: { mongodbUri: db.uri } });
    try {
      const lonelyApi = await Api.connect(lonely.url);
      const t = new Tokens(lonely);
      const token = await t.accessToken(await t.user('owner'), 'read');
      expect((await lonelyApi.get('/v1/projects', { token })).status).toBe(200);
      await db.stop();
      const res = await lonelyApi.get('/v1/projects', { token });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.text).not.toMatch(/mongo|ECONNREFUSED|stack/i);
    } finally {
      await lonely.stop().catch(() => undefined);
      await db.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
