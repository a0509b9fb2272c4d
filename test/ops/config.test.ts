import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { basicAuth } from '../support/oauthDriver.ts';
import { ConfigError, loadConfig, SETTING_LIST } from '../../src/config/index.ts';
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

/**
 * Each setting is declared once (src/config/index.ts, SETTINGS): the variables read, the schema and the
 * defaults come from there, and docs/OPERATIONS.md's table must list exactly those variables, with
 * those defaults.
 */
describe('the settings table of docs/OPERATIONS.md', () => {
  const operations = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'OPERATIONS.md'), 'utf8');
  const section = operations.slice(operations.indexOf('## Configuration'), operations.indexOf('## Exit codes'));
  /** Each variable of the table with the default written for it (a row may list several, in order). */
  const rows = [...section.matchAll(/^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \| ([^|]+) \|/gm)].flatMap((m) => {
    const names = [...m[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((n) => n[1]!);
    const values = [...m[2]!.matchAll(/`([^`]*)`/g)].map((v) => v[1]!);
    return names.map((env, i) => ({ env, written: m[2]!.trim(), value: names.length > 1 ? values[i] : values[0] }));
  });

  it('lists every variable a setting is read from, and no other', () => {
    expect(SETTING_LIST.length).toBeGreaterThan(40);
    expect(rows.map((r) => r.env).sort()).toEqual(SETTING_LIST.map((s) => s.env).sort());
  });

  it('gives each the default it is declared with', () => {
    const wrong = SETTING_LIST.flatMap(({ env, default: value }) => {
      const row = rows.find((r) => r.env === env);
      if (!row) return []; // the test above names it
      if (value === undefined) return row.written.startsWith('(unset)') || row.written.includes('loopback') ? [] : [`${env}: ${row.written} (declared: none)`];
      if (Array.isArray(value) && value.length === 0) return row.written === '(none)' ? [] : [`${env}: ${row.written} (declared: none)`];
      if (value === '') return row.written === '(unset)' ? [] : [`${env}: ${row.written} (declared: empty)`];
      return row.value === String(value) ? [] : [`${env}: ${row.written} (declared: ${String(value)})`];
    });
    expect(wrong).toEqual([]);
  });

  it('every declared default is what loadConfig gives when nothing else is set', () => {
    const config = loadConfig({ env: {}, rootDir: mkdtempSync(path.join(tmpdir(), 'slipway-config-')) });
    for (const { key, default: value } of SETTING_LIST) {
      if (value === undefined) continue;
      const loaded = (config as unknown as Record<string, unknown>)[key];
      if (['keysDir', 'dataDir', 'toolsDir'].includes(key)) expect(path.basename(String(loaded)), key).toBe(path.basename(String(value)));
      else expect(loaded, key).toEqual(value);
    }
  });
});
