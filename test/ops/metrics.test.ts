import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { AuthorizeError, authorizeOverHttp, CookieJar, obtainTokens, tokenRequest } from '../support/oauthDriver.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { sample } from '../support/metrics.ts';
import { startTestServer } from '../support/server.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const server = useTestServer({ overrides: { apiRateLimitPerHour: 2 } });

async function scrape(url = server.metricsUrl!, init?: RequestInit): Promise<string> {
  const response = await fetch(url, init);
  expect(response.status).toBe(200);
  return await response.text();
}


describe('metrics an on-call engineer reads', () => {
  it('a failed login, a successful one, the code exchange, a refresh and a refresh-token reuse each move their counter', async () => {
    const user = await makeUser(server);
    const { client } = await makeClient(server, { account_id: user.account_id, grant_types: ['authorization_code', 'refresh_token'], first_party: true });
    const options = { issuer: server.issuer, clientId: client._id, redirectUri: REDIRECT_URI, scope: 'read', email: user.email };
    const before = await scrape();

    await expect(authorizeOverHttp({ ...options, password: 'not the password at all' })).rejects.toBeInstanceOf(AuthorizeError);
    const afterFailure = await scrape();
    expect(sample(afterFailure, 'slipway_logins_total{outcome="failed"}')).toBe(sample(before, 'slipway_logins_total{outcome="failed"}') + 1);
    expect(sample(afterFailure, 'slipway_logins_total{outcome="ok"}')).toBe(sample(before, 'slipway_logins_total{outcome="ok"}'));

    const tokens = await obtainTokens({ ...options, password: user.password }, new CookieJar());
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await tokenRequest(server.issuer, { clientId: client._id }, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    expect(refreshed.access_token).toBeTruthy();
    const afterRefresh = await scrape();
    expect(sample(afterRefresh, 'slipway_logins_total{outcome="ok"}')).toBe(sample(before, 'slipway_logins_total{outcome="ok"}') + 1);
    for (const grant of ['authorization_code', 'refresh_token'])
      expect(sample(afterRefresh, `slipway_tokens_issued_total{grant_type="${grant}"}`), grant).toBe(sample(before, `slipway_tokens_issued_total{grant_type="${grant}"}`) + 1);

    // The first refresh token again: reuse, the grant is revoked and the counter moves.
    await expect(tokenRequest(server.issuer, { clientId: client._id }, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! })).rejects.toMatchObject({ status: 400 });
    const afterReuse = await scrape();
    expect(sample(afterReuse, 'slipway_refresh_token_reuse_total')).toBe(sample(before, 'slipway_refresh_token_reuse_total') + 1);
    expect(sample(afterReuse, 'slipway_tokens_issued_total{grant_type="refresh_token"}')).toBe(sample(afterRefresh, 'slipway_tokens_issued_total{grant_type="refresh_token"}'));

    // The failed login's log line names the client address and user agent.
    const failedLine = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'login failed');
    expect(failedLine).toMatchObject({ ip: '127.0.0.1', user_agent: expect.any(String) });
  });

  it('/v1 rate-limit refusals, database command latency by command name, and the webhook series are exported', async () => {
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${server.url}/v1/projects`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      await response.body?.cancel();
      statuses.push(response.status);
    }
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0);
    const text = await scrape();
    expect(sample(text, 'slipway_rate_limit_refusals_total{limit="api"}')).toBe(sample(before, 'slipway_rate_limit_refusals_total{limit="api"}') + refused);
    expect(sample(text, 'slipway_db_command_duration_seconds_count{command="find"}')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE slipway_webhook_deliveries_total counter');
    expect(text).toContain('# TYPE slipway_webhook_delivery_duration_seconds histogram');
  });

  it('route labels are bounded: no regular expressions, OAuth routes under /oauth', async () => {
    for (const path of ['/dashboard/projects', '/dashboard/projects/prj_123', '/oauth/jwks', '/oauth/.well-known/openid-configuration', '/v1/projects/prj_abc']) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      await response.body?.cancel();
    }
    const text = await scrape();
    const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]!));
    expect(routes).toContain('/oauth/jwks');
    expect(routes).toContain('/oauth/.well-known/openid-configuration');
    expect(routes).toContain('/v1/projects/:project_id');
    expect(routes).toContain('/dashboard/other');
    for (const route of routes) {
      expect(route, route).toMatch(/^(other|\/[A-Za-z0-9_./:-]*)$/);
      expect(route, route).not.toMatch(/prj_/);
    }
    for (const route of routes) if (route.startsWith('/') && route !== '/') expect(route, route).toMatch(/^\/(oauth|v1|dashboard|healthz|readyz|metrics|docs|openapi\.json|assets|favicon\.ico|\.well-known)/);
  });
});

describe('one metrics handle', () => {
  it('is built once per container: /metrics serves what that handle counts, and another instance counts its own', async () => {
    const other = await startTestServer();
    try {
      const series = 'slipway_webhook_endpoints_paused_total';
      const mine = sample(await scrape(), series);
      const theirs = sample(await scrape(other.metricsUrl!), series);
      expect(other.running.container.metrics).not.toBe(server.running.container.metrics);
      server.running.container.metrics.webhookEndpointPaused();
      expect(sample(await scrape(), series)).toBe(mine + 1);
      expect(sample(await scrape(other.metricsUrl!), series)).toBe(theirs);
    } finally {
      await other.stop();
    }
  });
});

describe('client address on authentication log lines', () => {
  it('is the X-Forwarded-For client only when trustProxy is on', async () => {
    const proxied = await startTestServer({ overrides: { trustProxy: true } });
    try {
      const direct = await loginFailureFrom(server, '198.51.100.23');
      const viaProxy = await loginFailureFrom(proxied, '198.51.100.23');
      expect(direct).toMatchObject({ ip: '127.0.0.1', user_agent: 'ops-test-agent/1.0' });
      expect(viaProxy).toMatchObject({ ip: '198.51.100.23', user_agent: 'ops-test-agent/1.0' });
    } finally {
      await proxied.stop();
    }
  });
});

/** Starts a sign-in, posts a wrong password with X-Forwarded-For and a User-Agent; returns that request's `login failed` line. */
async function loginFailureFrom(target: typeof server, forwardedFor: string): Promise<Record<string, unknown> | undefined> {
  const user = await makeUser(target);
  const { client } = await makeClient(target, { account_id: user.account_id, first_party: true });
  const jar = new CookieJar();
  const authorize = new URL(`${target.issuer}/authorize`);
  authorize.search = new URLSearchParams({ client_id: client._id, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'read', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }).toString();
  const started = await fetch(authorize, { redirect: 'manual' });
  jar.store(started);
  const interaction = new URL(started.headers.get('location')!, authorize);
  const requestId = `xff-${Math.random().toString(36).slice(2, 12)}`;
  const posted = await fetch(`${interaction.href}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: jar.header(`${interaction.pathname}/login`) ?? '', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor, 'user-agent': 'ops-test-agent/1.0', 'x-request-id': requestId },
    body: new URLSearchParams({ email: user.email, password: 'wrong password here' }).toString(),
  });
  expect(posted.status).toBe(401);
  await posted.body?.cancel();
  return target.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'login failed' && l.request_id === requestId);
}

describe('where /metrics is served', () => {
  it('never on the public port of a server with a metrics listener', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('slipway_http_requests_total');
  });

  it('behind a bearer token on the main port when only metricsToken is set; nowhere with neither', async () => {
    const token = 'metrics-token-'.padEnd(40, 'x');
    const withToken = await startTestServer({ overrides: { metricsListen: '', metricsToken: token } });
    const off = await startTestServer({ overrides: { metricsListen: '' } });
    try {
      expect(withToken.metricsUrl).toBeUndefined();
      for (const authorization of [undefined, 'Bearer wrong', `Basic ${token}`]) {
        const response = await fetch(`${withToken.url}/metrics`, { headers: authorization ? { authorization } : {} });
        expect(response.status, authorization).toBe(401);
        expect(await response.text()).not.toContain('slipway_');
      }
      expect(await scrape(`${withToken.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).toContain('slipway_http_requests_total');
      expect(withToken.logs.join('\n')).not.toContain(token);

      const response = await fetch(`${off.url}/metrics`);
      expect(response.status).toBe(404);
      await response.body?.cancel();
      expect(off.logs.some((l) => l.includes('/metrics is off'))).toBe(true);
    } finally {
      await Promise.all([withToken.stop(), off.stop()]);
    }
  });
});

describe('metrics settings', () => {
  it('validates METRICS_LISTEN and METRICS_TOKEN, naming the variable and never echoing the token', () => {
    expect(loadConfig({ env: { METRICS_LISTEN: '127.0.0.1:9464' } }).metricsListen).toBe('127.0.0.1:9464');
    expect(() => loadConfig({ env: { METRICS_LISTEN: 'port 9464' } })).toThrow(/metricsListen \(env METRICS_LISTEN\)/);
    let message = '';
    try {
      loadConfig({ env: { METRICS_TOKEN: 'too-short-secret' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/metricsToken \(env METRICS_TOKEN\): must be at least 32 characters/);
    expect(message).not.toContain('too-short-secret');
  });
});
