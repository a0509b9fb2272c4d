import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { useApiServer, useTestServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';

/*
 * The edge: absolute URLs from PUBLIC_URL only (never Host / X-Forwarded-Host), HSTS under https, deep
 * JSON refused with 400, oversized forms answered and logged as 413.
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request with headers fetch would not send as given (Host), over plain HTTP to the test server. */
function request(server: TestServer, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.running.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };

function expectOnlyPublicUrl(metadata: Record<string, unknown>, publicUrl: string): void {
  const urls = Object.entries(metadata).filter(([, v]) => typeof v === 'string' && /^https?:\/\//.test(v));
  expect(urls.length).toBeGreaterThan(3);
  for (const [name, value] of urls) expect(value as string, name).toMatch(new RegExp(`^${publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
  expect(JSON.stringify(metadata)).not.toContain('evil.example');
}

describe('under an http PUBLIC_URL, behind a trusted proxy', () => {
  const server = useTestServer({ overrides: { trustedProxies: ['127.0.0.1'] } });

  it('discovery names PUBLIC_URL everywhere, whatever Host and X-Forwarded-Host say', async () => {
    for (const path of ['/oauth/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/oauth']) {
      const res = await request(server, path, { headers: FORGED });
      expect(res.status).toBe(200);
      const metadata = JSON.parse(res.text) as Record<string, unknown>;
      expect(metadata.token_endpoint).toBe(`${server.url}/oauth/token`);
      expect(metadata.jwks_uri).toBe(`${server.url}/oauth/jwks`);
      expectOnlyPublicUrl(metadata, server.url);
    }
    const resource = await request(server, '/.well-known/oauth-protected-resource/v1', { headers: FORGED });
    expect(resource.status).toBe(200);
    expect(resource.text).not.toContain('evil.example');
    // An absolute-form request target is read for its path only.
    const absolute = await request(server, 'http://evil.example/oauth/.well-known/openid-configuration', { headers: FORGED });
    expect(absolute.status).toBe(200);
    expectOnlyPublicUrl(JSON.parse(absolute.text) as Record<string, unknown>, server.url);
  });

  it('no Strict-Transport-Security under http', async () => {
    const res = await request(server, '/healthz');
    expect(res.status).toBe(200);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('an oversized login form: 413 to the client, 413 in the access log, no error and no stack logged', async () => {
    const before = server.logs.length;
    const body = `email=a%40example.com&password=${'x'.repeat(40 * 1024)}`;
    for (const path of ['/oauth/interaction/some-uid/login', '/dashboard/setup']) {
      const res = await request(server, path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', 'x-request-id': `big-form-${path.length}-0001` }, body });
      expect(res.status, path).toBe(413);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('too large');
    }
    const json = await request(server, '/oauth/interaction/some-uid/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
    expect(json.status).toBe(413);
    expect((JSON.parse(json.text) as { error: { code: string } }).error.code).toBe('payload_too_large');

    await new Promise((r) => setTimeout(r, 50));
    const lines = server.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.filter((l) => l.msg === 'request' && String(l.path).match(/\/login$|\/setup$/));
    expect(access.length).toBe(3);
    for (const line of access) expect(line.status).toBe(413);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(server.logs.slice(before).join('\n')).not.toMatch(/"stack"|at .*\.ts:\d+/);
  });
});

describe('under an https PUBLIC_URL (TLS ends at the proxy)', () => {
  const publicUrl = 'https://slipway.example';
  const server = useTestServer({ overrides: { publicUrl, trustedProxies: ['127.0.0.1'] } });

  it('every response carries Strict-Transport-Security', async () => {
    for (const path of ['/healthz', '/oauth/.well-known/openid-configuration', '/v1/projects', '/dashboard/login']) {
      const res = await request(server, path);
      expect(res.headers['strict-transport-security'], path).toBe('max-age=31536000; includeSubDomains');
    }
  });

  it('discovery names the https PUBLIC_URL even for a plain-http request with a forged Host', async () => {
    const res = await request(server, '/oauth/.well-known/openid-configuration', { headers: FORGED });
    expect(res.status).toBe(200);
    const metadata = JSON.parse(res.text) as Record<string, unknown>;
    expect(metadata.issuer).toBe(`${publicUrl}/oauth`);
    expect(metadata.token_endpoint).toBe(`${publicUrl}/oauth/token`);
    expectOnlyPublicUrl(metadata, publicUrl);
  });
});

describe('deeply nested JSON', () => {
  const env = useApiServer();

  it('a 10,000-deep array or object on /v1 is 400 invalid_request with the JSON error body, never 500', async () => {
    const bodies = {
      array: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      object: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
      'array in an object': `{"name":"x","tags":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      'brackets inside strings do not count': `{"name":"${'['.repeat(200)}","x":${'['.repeat(65)}${']'.repeat(65)}}`,
    };
    for (const [what, body] of Object.entries(bodies)) {
      const res = await request(env.server, '/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${env.adminToken}` }, body });
      expect(res.status, what).toBe(400);
      const error = (JSON.parse(res.text) as { error: { code: string; message: string; request_id: string } }).error;
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/more than 64 deep/);
      expect(error.request_id).toBeTruthy();
    }
    expect(await env.server.repos.projects.collection.countDocuments({ account_id: env.owner.accountId })).toBe(0);
  });

  it('64 levels are still read (and judged by the schema)', async () => {
    const body = `{"name":"deep-but-allowed","x":${'['.repeat(63)}${']'.repeat(63)}}`;
    const res = await request(env.server, '/v1/projects', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${env.adminToken}` }, body });
    expect(res.status).not.toBe(500);
    expect(res.text).not.toMatch(/more than 64 deep/);
  });
});
