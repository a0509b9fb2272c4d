import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { CORS_EXPOSED_HEADERS } from '../../src/http/cors.ts';
import { SessionService } from '../../src/services/sessions.ts';
import { makeClient } from '../support/factories.ts';
import { useApiServer } from '../support/fixtures.ts';

const CONFIGURED = 'https://app.example.com';
const SPA = 'http://127.0.0.1:5173';
const env = useApiServer({ overrides: { corsOrigins: [CONFIGURED] } });
let clientId: string;

beforeAll(async () => {
  ({ client: { _id: clientId } } = await makeClient(env.server, { account_id: env.owner.accountId, redirect_uris: [`${SPA}/callback`] }));
});

const preflight = (path: string, origin: string, method = 'POST', headers = 'authorization, content-type, idempotency-key') =>
  fetch(`${env.server.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

const list = (header: string | null) => (header ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);

describe('CORS on /v1', () => {
  it('answers a preflight from a registered client origin without any credential: methods, headers, Vary, no credentials', async () => {
    for (const [path, method] of [['/v1/projects', 'POST'], ['/v1/projects/prj_x', 'PATCH'], ['/v1/projects/prj_x', 'DELETE']] as const) {
      const response = await preflight(path, SPA, method);
      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(SPA);
      expect(list(response.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
      expect(list(response.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(['authorization', 'content-type', 'dpop', 'idempotency-key']));
      expect(list(response.headers.get('vary'))).toContain('origin');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
  });

  it('gives an unknown origin no CORS headers, on preflights and on requests', async () => {
    const refused = await preflight('/v1/projects', 'https://evil.example.net');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const request = await fetch(`${env.server.url}/v1/projects`, { headers: { origin: 'https://evil.example.net', authorization: `Bearer ${env.adminToken}` } });
    expect(request.status).toBe(200);
    expect(request.headers.get('access-control-allow-origin')).toBeNull();
    expect(list(request.headers.get('vary'))).toContain('origin');
    const nullOrigin = await preflight('/v1/projects', 'null');
    expect(nullOrigin.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets an allowed origin read responses, errors included, and the headers it needs', async () => {
    for (const origin of [SPA, CONFIGURED]) {
      const response = await fetch(`${env.server.url}/v1/projects?per_page=1`, { headers: { origin, authorization: `Bearer ${env.adminToken}` } });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(list(response.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(CORS_EXPOSED_HEADERS.map((h) => h.toLowerCase())));
      expect(list(response.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['x-request-id', 'ratelimit-remaining', 'link', 'location', 'retry-after', 'dpop-nonce', 'www-authenticate']));
    }
    const unauthorized = await fetch(`${env.server.url}/v1/projects`, { headers: { origin: SPA } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(SPA);
    expect(((await unauthorized.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('never lets a cookie authenticate a cross-origin request', async () => {
    const { token } = await new SessionService({ ...env.server.repos, clock: env.server.clock }).create(env.owner.id, env.owner.accountId);
    const sameOrigin = await fetch(`${env.server.url}/v1/projects`, { headers: { cookie: `slipway_session=${token}` } });
    expect(sameOrigin.status).toBe(200);
    await sameOrigin.body?.cancel();
    for (const origin of [SPA, 'https://evil.example.net']) {
      const crossOrigin = await fetch(`${env.server.url}/v1/projects`, { headers: { origin, cookie: `slipway_session=${token}` } });
      expect(crossOrigin.status, origin).toBe(401);
      await crossOrigin.body?.cancel();
    }
  });

  it('follows clients as they are registered and deleted', async () => {
    const origin = 'https://new-app.example.org';
    expect((await preflight('/v1/projects', origin)).headers.get('access-control-allow-origin')).toBeNull();
    const created = await env.api.post('/v1/oauth_clients', {
      token: env.adminToken,
      body: { client_name: 'New SPA', redirect_uris: [`${origin}/cb`], token_endpoint_auth_method: 'none' },
    });
    expect(created.status).toBe(201);
    expect((await preflight('/v1/projects', origin)).headers.get('access-control-allow-origin')).toBe(origin);
    const deleted = await env.api.delete(`/v1/oauth_clients/${created.body.client_id as string}`, { token: env.adminToken });
    expect(deleted.status).toBeLessThan(300);
    expect((await preflight('/v1/projects', origin)).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS on the OAuth endpoints a browser app calls', () => {
  it('discovery and JWKS are readable from any origin, without credentials', async () => {
    for (const path of ['/oauth/.well-known/openid-configuration', '/oauth/jwks']) {
      const response = await fetch(`${env.server.url}${path}`, { headers: { origin: SPA } });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      expect(response.headers.get('access-control-allow-origin'), path).toBe(SPA);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('the token endpoint answers a preflight, and accepts a public client from its own origin or a configured one only', async () => {
    const pre = await preflight('/oauth/token', SPA, 'POST', 'content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(SPA);

    const tokenFrom = async (origin: string, client = clientId) => {
      const response = await fetch(`${env.server.issuer}/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', redirect_uri: `${SPA}/callback`, code_verifier: 'v'.repeat(43), client_id: client }).toString(),
      });
      return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: (await response.json()) as { error: string; error_description?: string } };
    };
    // The client's own origin and the configured one get to read the (OAuth) error; another origin is refused.
    for (const origin of [SPA, CONFIGURED]) {
      const own = await tokenFrom(origin);
      expect(own.body.error, origin).toBe('invalid_grant');
      expect(own.allowOrigin).toBe(origin);
    }
    const foreign = await tokenFrom('https://evil.example.net');
    expect(foreign.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('not allowed') });
    expect(foreign.allowOrigin).toBeNull();

    // A confidential client is not a browser app: not even its own redirect origin may call cross-origin.
    const { client, clientSecret } = await makeClient(env.server, { account_id: env.owner.accountId, redirect_uris: ['https://backend.example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    const confidential = await fetch(`${env.server.issuer}/token`, {
      method: 'POST',
      headers: { origin: 'https://backend.example.com', 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client._id}:${clientSecret!}`).toString('base64')}` },
      body: 'grant_type=authorization_code&code=nope&redirect_uri=https%3A%2F%2Fbackend.example.com%2Fcb&code_verifier=' + 'v'.repeat(43),
    });
    expect(confidential.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await confidential.json()) as { error_description: string }).error_description).toContain('not allowed');
  });
});

describe('CORS settings', () => {
  it('CORS_ORIGINS is a comma-separated list of origins; paths and other schemes are refused', () => {
    expect(loadConfig({ env: { CORS_ORIGINS: 'https://a.example.com, http://127.0.0.1:5173' } }).corsOrigins).toEqual(['https://a.example.com', 'http://127.0.0.1:5173']);
    expect(() => loadConfig({ env: { CORS_ORIGINS: 'https://a.example.com/app' } })).toThrow(/corsOrigins/);
    expect(() => loadConfig({ env: { CORS_ORIGINS: 'ftp://a.example.com' } })).toThrow(/corsOrigins/);
  });
});
