import { describe, expect, it } from 'vitest';
import { basicAuth } from '../support/oauthDriver.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { runNode } from '../support/processes.ts';

const BAD_ENV = { PORT: 'abc', PUBLIC_URL: 'notaurl', LOG_LEVEL: 'loud' };

describe('configuration', () => {
  it('loadConfig lists every problem at once, each with its environment variable', () => {
    let caught: unknown;
    try {
      loadConfig({ env: BAD_ENV });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const { problems, message } = caught as ConfigError;
    expect(problems).toHaveLength(3);
    for (const name of Object.keys(BAD_ENV)) expect(problems.filter((p) => p.includes(`(env ${name})`))).toHaveLength(1);
    for (const problem of problems) expect(message).toContain(problem);
  });

  it('npm start (node src/main.ts) exits 2 and prints every problem', async () => {
    const result = await runNode(['src/main.ts'], { ...BAD_ENV, MONGODB_URI: 'mongodb://127.0.0.1:9/' }, 15_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toMatch(/port \(env PORT\): /);
    expect(result.stderr).toMatch(/publicUrl \(env PUBLIC_URL\): /);
    expect(result.stderr).toMatch(/logLevel \(env LOG_LEVEL\): /);
    expect(result.stdout).not.toContain('slipway listening');
  });

  it('tokenRateLimitPerMinute defaults to the contract value and is validated', () => {
    expect(loadConfig({ env: {} }).tokenRateLimitPerMinute).toBe(600);
    expect(loadConfig({ env: { TOKEN_RATE_LIMIT_PER_MINUTE: '100000' } }).tokenRateLimitPerMinute).toBe(100_000);
    expect(() => loadConfig({ env: { TOKEN_RATE_LIMIT_PER_MINUTE: '0' } })).toThrow(/tokenRateLimitPerMinute \(env TOKEN_RATE_LIMIT_PER_MINUTE\)/);
    expect(() => loadConfig({ env: { TOKEN_RATE_LIMIT_PER_MINUTE: 'lots' } })).toThrow(ConfigError);
  });
});

describe('proxy and budget settings', () => {
  it('read the proxy model and the budgets from the environment, with their defaults', () => {
    const defaults = loadConfig({ env: {} });
    expect(defaults).toMatchObject({ trustProxy: false, proxyHops: 0, trustedProxies: [], loginPerDevicePerMinute: 10, tokenFailuresPerSourcePerMinute: 300, tokenFailuresPerClientAndSourcePerMinute: 30 });
    const set = loadConfig({ env: { TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8 192.0.2.7', PROXY_HOPS: '2', TOKEN_FAILURES_PER_SOURCE_PER_MINUTE: '50' } });
    expect(set).toMatchObject({ trustedProxies: ['10.0.0.0/8', 'fd00::/8', '192.0.2.7'], proxyHops: 2, tokenFailuresPerSourcePerMinute: 50 });
  });

  it('refuse a range that is not an address or CIDR, and a negative hop count', () => {
    expect(() => loadConfig({ env: { TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' } })).toThrow(/trustedProxies.*IP address or CIDR/);
    expect(() => loadConfig({ env: { TRUSTED_PROXIES: '10.0.0.0/40' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { PROXY_HOPS: '-1' } })).toThrow(/proxyHops \(env PROXY_HOPS\)/);
  });
});

describe('token endpoint rate limit from configuration', () => {
  const server = useTestServer({ overrides: { tokenRateLimitPerMinute: 3 } });

  it('answers 429 rate_limited with Retry-After once a client passes the configured limit', async () => {
    const user = await makeUser(server);
    const { client, clientSecret } = await makeClient(server, {
      account_id: user.account_id,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      redirect_uris: [],
    });
    // The limit is a fixed one-minute window; start at the start of one so the four requests share it.
    server.clock.startOfNextWindow();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client._id, clientSecret!) },
        body: 'grant_type=client_credentials&scope=read',
      });
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited!.json()).toMatchObject({ error: 'rate_limited' });
  });
});
