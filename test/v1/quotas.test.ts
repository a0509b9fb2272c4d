import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/*
 * Per-account quotas (small ones here, through test overrides) and the account request budget.
 */
const QUOTAS = { quotaProjects: 30, quotaWebhooks: 8, quotaApiKeys: 10, quotaUsers: 50, quotaOauthClients: 20 };
const OVERRIDES = { ...QUOTAS, webhookAllowLoopback: true };
const env = useApiServer({ overrides: OVERRIDES });
let second: TestServer;
let secondApi: Api;

beforeAll(async () => {
  second = await startAnotherInstance(env.server, OVERRIDES);
  secondApi = await Api.connect(second.url);
});
afterAll(async () => {
  await second?.stop();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timedLists(api: Api, token: string, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await api.get('/v1/projects', { token });
    times.push(performance.now() - started);
    expect(res.status).toBe(200);
  }
  return median(times);
}

describe('count quotas', () => {
  it('projects: up to the quota, then 403 quota_exceeded naming the quota and its limit; a deleted project frees its slot', async () => {
    const { tokens } = env;
    const owner = await tokens.user('owner');
    const token = await tokens.accessToken(owner, 'admin');
    const made: string[] = [];
    for (let i = 0; i < QUOTAS.quotaProjects; i++) {
      const res = await env.api.post('/v1/projects', { token, body: { name: `p-${i}` } });
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    const refused = await env.api.post('/v1/projects', { token, body: { name: 'one too many' } });
    expectRefused(refused, 403, 'quota_exceeded');
    expect(refused.body.error.details).toEqual([{ field: 'projects', message: `limit ${QUOTAS.quotaProjects}` }]);
    expect(refused.body.error.message).toContain(`${QUOTAS.quotaProjects} projects`);

    expect((await env.api.delete(`/v1/projects/${made[0]}`, { token })).status).toBe(204);
    expect((await env.api.post('/v1/projects', { token, body: { name: 'fits again' } })).status).toBe(201);
    expectRefused(await env.api.post('/v1/projects', { token, body: { name: 'over again' } }), 403, 'quota_exceeded');
    const usage = await env.server.services.quotas.usage({ accountId: owner.accountId });
    expect(usage.find((q) => q.kind === 'projects')).toEqual({ kind: 'projects', used: QUOTAS.quotaProjects, limit: QUOTAS.quotaProjects });
    expect(await env.server.repos.projects.collection.countDocuments({ account_id: owner.accountId })).toBe(QUOTAS.quotaProjects);
  });

  it('the dashboard’s Account page shows each quota with its use', async () => {
    const owner = await env.tokens.user('owner');
    const token = await env.tokens.accessToken(owner, 'admin');
    for (let i = 0; i < 3; i++) expect((await env.api.post('/v1/projects', { token, body: { name: `shown-${i}` } })).status).toBe(201);
    const { token: session } = await env.server.running.container.sessions.create(owner.id, owner.accountId);
    const res = await fetch(`${env.server.url}/dashboard/account`, { headers: { cookie: `slipway_session=${session}` } });
    expect(res.status).toBe(200);
    const page = await res.text();
    const row = (kind: string) => page.match(new RegExp(`<tr data-quota="${kind}">(.*?)</tr>`, 's'))?.[1]?.replace(/<[^>]+>/g, '|');
    expect(row('projects')).toBe(`|Projects||3||${QUOTAS.quotaProjects}|`);
    expect(row('users')).toBe(`|Users||1||${QUOTAS.quotaUsers}|`);
    expect(row('webhooks')).toBe(`|Webhooks||0||${QUOTAS.quotaWebhooks}|`);
    expect(row('requests_per_hour')).toContain(String(env.server.config.accountRequestsPerHour));
  });

  it('projects: 20 creates at once with 5 slots left, on one instance and on two, make exactly 5', async () => {
    const { tokens } = env;
    for (const instances of [1, 2]) {
      const owner = await tokens.user('owner');
      const token = await tokens.accessToken(owner, 'admin');
      for (let i = 0; i < QUOTAS.quotaProjects - 5; i++) expect((await env.api.post('/v1/projects', { token, body: { name: `fill-${i}` } })).status).toBe(201);
      const apis = instances === 1 ? [env.api] : [env.api, secondApi];
      const results = await race(20, (i) => apis[i % apis.length]!.post('/v1/projects', { token, body: { name: `race-${i}` } }));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      for (const r of results.filter((r) => r.status !== 201)) expectRefused(r, 403, 'quota_exceeded');
      expect(await env.server.repos.projects.collection.countDocuments({ account_id: owner.accountId })).toBe(QUOTAS.quotaProjects);
      expect(await env.server.repos.quotaSlots.count(owner.accountId, 'projects')).toBe(QUOTAS.quotaProjects);
    }
  });

  it('webhooks: 16 creates at once with 3 slots left, across two instances, make exactly 3', async () => {
    const { tokens } = env;
    const owner = await tokens.user('owner');
    const token = await tokens.accessToken(owner, 'admin');
    const body = (i: number) => ({ url: `http://127.0.0.1:9/hook-${i}`, events: ['project.created'] });
    for (let i = 0; i < QUOTAS.quotaWebhooks - 3; i++) expect((await env.api.post('/v1/webhooks', { token, body: body(i) })).status).toBe(201);
    const results = await race(16, (i) => (i % 2 ? secondApi : env.api).post('/v1/webhooks', { token, body: body(100 + i) }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) expectRefused(r, 403, 'quota_exceeded');
    expect(await env.server.repos.webhooks.collection.countDocuments({ account_id: owner.accountId })).toBe(QUOTAS.quotaWebhooks);
    const refused = await env.api.post('/v1/webhooks', { token, body: body(999) });
    expectRefused(refused, 403, 'quota_exceeded');
    expect(refused.body.error.details).toEqual([{ field: 'webhooks', message: `limit ${QUOTAS.quotaWebhooks}` }]);
  });

  it('active API keys across the account’s projects: 20 creates at once with 4 slots left, on two instances, make exactly 4; revoking one frees its slot', async () => {
    const { tokens } = env;
    const owner = await tokens.user('owner');
    const token = await tokens.accessToken(owner, 'admin');
    const p1 = (await env.api.post('/v1/projects', { token, body: { name: 'keys-1' } })).body.id;
    const p2 = (await env.api.post('/v1/projects', { token, body: { name: 'keys-2' } })).body.id;
    const keyIds: string[] = [];
    for (let i = 0; i < QUOTAS.quotaApiKeys - 4; i++) {
      const res = await env.api.post(`/v1/projects/${i % 2 ? p1 : p2}/api_keys`, { token, body: { name: `k${i}`, scopes: ['read'] } });
      expect(res.status).toBe(201);
      keyIds.push(res.body.id);
    }
    const results = await race(20, (i) => (i % 2 ? env.api : secondApi).post(`/v1/projects/${i % 3 ? p1 : p2}/api_keys`, { token, body: { name: `race${i}`, scopes: ['read'] } }));
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    for (const r of results.filter((r) => r.status !== 201)) expectRefused(r, 403, 'quota_exceeded');
    expect(await env.server.repos.apiKeys.collection.countDocuments({ account_id: owner.accountId, status: 'active' })).toBe(QUOTAS.quotaApiKeys);

    expect((await env.api.delete(`/v1/projects/${p2}/api_keys/${keyIds[0]}`, { token })).status).toBe(200);
    expect((await env.api.post(`/v1/projects/${p1}/api_keys`, { token, body: { name: 'after revoke', scopes: ['read'] } })).status).toBe(201);
    expectRefused(await env.api.post(`/v1/projects/${p1}/api_keys`, { token, body: { name: 'over', scopes: ['read'] } }), 403, 'quota_exceeded');
  });

  it('another account’s GET /v1/projects does not slow down while one account sits at its quota (measured, printed)', async () => {
    const { tokens } = env;
    const quiet = await tokens.user('owner');
    const quietToken = await tokens.accessToken(quiet, 'admin');
    for (let i = 0; i < 10; i++) await env.api.post('/v1/projects', { token: quietToken, body: { name: `quiet-${i}` } });
    const before = await timedLists(env.api, quietToken, 30);

    const busy = await tokens.user('owner');
    const busyToken = await tokens.accessToken(busy, 'admin');
    for (let i = 0; i < QUOTAS.quotaProjects; i++) await env.api.post('/v1/projects', { token: busyToken, body: { name: `busy-${i}` } });
    const atQuota = await timedLists(env.api, quietToken, 30);
    // The busy account keeps trying to create while the quiet one lists.
    let refused = 0;
    let stop = false;
    const hammer = (async () => {
      while (!stop) {
        const res = await env.api.post('/v1/projects', { token: busyToken, body: { name: `more-${refused}` } });
        if (res.status === 403) refused++;
      }
    })();
    const during = await timedLists(env.api, quietToken, 30);
    stop = true;
    await hammer;
    console.log(
      `other account GET /v1/projects median: ${before.toFixed(1)} ms before; ${atQuota.toFixed(1)} ms with one account at its quota; ${during.toFixed(1)} ms while that account keeps creating (one request at a time on the same 2 cores; ${refused} creates refused meanwhile)`,
    );
    expect(refused).toBeGreaterThan(0);
    expect(await env.server.repos.projects.collection.countDocuments({ account_id: busy.accountId })).toBe(QUOTAS.quotaProjects);
  });
});

describe('the account request budget', () => {
  const budget = useApiServer({ overrides: { accountRequestsPerHour: 25 } });

  it('counts every credential of the account together: past it, 429 rate_limited with Retry-After, naming the account request budget', async () => {
    const tokens = new Tokens(budget.server);
    const owner = await tokens.user('owner');
    const a = await tokens.accessToken(owner, 'read');
    const developer = await tokens.user('developer', owner.accountId);
    const b = await tokens.accessToken(developer, 'read');
    const results = await race(40, (i) => budget.api.get('/v1/projects', { token: i % 2 ? a : b }));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBe(25);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(15);
    for (const r of limited) {
      expectRefused(r, 429, 'rate_limited');
      expect(r.body.error.message).toMatch(/^Account request budget exceeded; retry after \d+ seconds\.$/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      // The RateLimit-* headers stay the credential's own (5,000 an hour).
      expect(r.headers.get('ratelimit-limit')).toBe(String(budget.server.config.apiRateLimitPerHour));
    }
    // Another account is not affected.
    const other = await tokens.user('owner');
    expect((await budget.api.get('/v1/projects', { token: await tokens.accessToken(other, 'read') })).status).toBe(200);
  });
});
