import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api, ApiResponse } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * Revocation and user changes are seen within these bounds (configurable, at most 30 s); the tests move
 * the server's clock past them instead of waiting.
 */
const REVOCATION_REFRESH_SECONDS = 20;
const PRINCIPAL_CACHE_SECONDS = 20;

const env = useApiServer({ overrides: { revocationRefreshSeconds: REVOCATION_REFRESH_SECONDS, principalCacheSeconds: PRINCIPAL_CACHE_SECONDS }, adminToken: false });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser;
let clientId: string;

beforeAll(async () => {
  ({ server, api, tokens, owner } = env);
  clientId = await tokens.publicClient(owner.accountId);
});

const expectInvalidToken = (res: ApiResponse) => {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('invalid_token');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="slipway", error="invalid_token", error_description="[^"]+"$/);
};

/** Once the server's clock has moved past `boundSeconds`, the token is refused: 401 invalid_token. */
async function refusedAfter(token: string, boundSeconds: number): Promise<void> {
  server.clock.advance(boundSeconds * 1000 + 1);
  expectInvalidToken(await api.get('/v1/projects', { token }));
}

describe('credentials that are refused', () => {
  it('no Authorization header → 401 unauthorized with a plain Bearer challenge', async () => {
    const res = await api.get('/v1/projects');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), status: 401, request_id: res.headers.get('x-request-id') } });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="slipway"');
  });

  it('another scheme (Basic) → 401 unauthorized', async () => {
    const res = await api.get('/v1/projects', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('tokens in the query string are never accepted, even valid ones', async () => {
    const token = await tokens.accessToken(owner, 'read');
    const res = await api.get(`/v1/projects?access_token=${token}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(/query string/);
    // ...and not even alongside a valid header: the token has leaked into a URL.
    const both = await api.get(`/v1/projects?access_token=${token}`, { token });
    expect(both.status).toBe(400);
  });

  it.each([
    ['an empty bearer value', 'Bearer '],
    ['two values', 'Bearer abc def'],
    ['an unknown prefix', 'Bearer xyz_0123456789abcdefghijklmnopqrstuv'],
    ['garbage', 'Bearer !!!'],
    ['a JWT with alg none', `Bearer ${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`],
  ])('%s → 401 invalid_token', async (_name, header) => {
    const res = await api.get('/v1/projects', { headers: { authorization: header } });
    expectInvalidToken(res);
  });

  it('refuses forged or foreign tokens: bad signature, wrong iss, aud, typ, expired, unknown user, unknown client', async () => {
    const claims = tokens.userClaims(owner, clientId);
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string> = {
      'signed with another key': await tokens.forge(claims, { foreignKey: true }),
      'wrong issuer': await tokens.forge({ ...claims, iss: 'https://evil.example/oauth' }),
      'wrong audience': await tokens.forge({ ...claims, aud: `${server.url}/v2` }),
      'typ JWT instead of at+jwt': await tokens.forge(claims, { typ: 'JWT' }),
      'expired a minute ago': await tokens.forge({ ...claims, iat: now - 3660, exp: now - 60 }),
      'unknown user': await tokens.forge({ ...claims, sub: 'usr_01m7yyc0xe4c7t8c5f3e5w1w1e' }),
      'another account than the user': await tokens.forge({ ...claims, acct: 'acct_01m7yyc0xe4c7t8c5f3e5w1w1e' }),
      'unknown client': await tokens.forge({ ...claims, client_id: 'cli_doesnotexist' }),
      'no grant id': await tokens.forge({ ...claims, gid: undefined }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await api.get('/v1/projects', { token });
      expect(res.status, name).toBe(401);
      expect(res.body.error.code, name).toBe('invalid_token');
    }
    // The same claims signed properly are accepted: the refusals above are about what was changed.
    const good = await api.get('/v1/projects', { token: await tokens.forge(claims) });
    expect(good.status).toBe(200);
  });

  it('DPoP (RFC 9449): a bound token needs the DPoP scheme and a proof; other schemes stay refused; the Bearer path is unchanged', async () => {
    const claims = tokens.userClaims(owner, clientId);
    const bound = await tokens.forge({ ...claims, cnf: { jkt: 'kx4Qf0wV3zrZ5aQ7H9dY2r8Nn1bT6pLm0sXcWuEoIgA' } });
    const asBearer = await api.get('/v1/projects', { token: bound });
    expect(asBearer.status).toBe(401);
    expect(asBearer.body.error.code).toBe('invalid_token');
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP realm="slipway", algs="ES256 Ed25519 EdDSA", error="invalid_token"/);
    const noProof = await api.get('/v1/projects', { headers: { authorization: `DPoP ${bound}` } });
    expect(noProof.status).toBe(401);
    expect(noProof.body.error.code).toBe('invalid_dpop_proof');
    // A confirmation this API cannot check (mTLS, RFC 8705) is refused outright.
    const mtls = await tokens.forge({ ...claims, cnf: { 'x5t#S256': 'bm90LWEtY2VydGlmaWNhdGU' } });
    expectInvalidToken(await api.get('/v1/projects', { token: mtls }));
    // An unbound token with the DPoP scheme, and an unknown scheme.
    const plain = await tokens.forge(claims);
    const unboundAsDpop = await api.get('/v1/projects', { headers: { authorization: `DPoP ${plain}` } });
    expect(unboundAsDpop.status).toBe(401);
    expect(unboundAsDpop.body.error.code).toBe('invalid_token');
    const basic = await api.get('/v1/projects', { headers: { authorization: `Basic ${plain}` } });
    expect(basic.status).toBe(401);
    expect(basic.body.error.code).toBe('unauthorized');
    expect((await api.get('/v1/projects', { token: plain })).status).toBe(200);
  });

  it('tolerates only a few seconds of clock skew on exp', async () => {
    const claims = tokens.userClaims(owner, clientId);
    const now = Math.floor(server.clock.now() / 1000);
    expect((await api.get('/v1/projects', { token: await tokens.forge({ ...claims, exp: now - 2 }) })).status).toBe(200);
    expect((await api.get('/v1/projects', { token: await tokens.forge({ ...claims, exp: now - 30 }) })).status).toBe(401);
  });

  it('a token accepted before is refused once it expires (verified signatures are remembered, expiry is checked every time)', async () => {
    const claims = tokens.userClaims(owner, clientId);
    const exp = Math.floor(server.clock.now() / 1000) - 4; // inside the 5 s skew allowance for about a second
    const token = await tokens.forge({ ...claims, exp });
    expect((await api.get('/v1/projects', { token })).status).toBe(200);
    server.clock.advance(Math.max(0, (exp + 5) * 1000 - server.clock.now()) + 1100);
    const res = await api.get('/v1/projects', { token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_token');
  });
});

describe('revocation and live user state', () => {
  it(`a revoked grant's access token is refused within ${REVOCATION_REFRESH_SECONDS} s (the configured refresh interval)`, async () => {
    const user = await tokens.user('developer', owner.accountId);
    const ownClient = await tokens.publicClient(owner.accountId, true);
    const issued = await tokens.forUser(user, 'read write', { clientId: ownClient, withRefresh: true });
    expect(issued.refresh_token).toBeTruthy();
    expect((await api.get('/v1/projects', { token: issued.access_token })).status).toBe(200);

    const revoked = await fetch(`${server.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.refresh_token!, client_id: ownClient }),
    });
    expect(revoked.status).toBe(200);
    const gid = decodeJwt(issued.access_token).gid as string;
    expect((await server.repos.revokedGrants.revokedSince(new Date(0))).map((r) => r.id)).toContain(gid);

    await refusedAfter(issued.access_token, REVOCATION_REFRESH_SECONDS);
    // Another grant of the same user keeps working.
    expect((await api.get('/v1/projects', { token: await tokens.accessToken(user, 'read') })).status).toBe(200);
  });

  it(`a removed user is refused within ${PRINCIPAL_CACHE_SECONDS} s; a demoted user loses the role's rights as fast`, async () => {
    const user = await tokens.user('admin', owner.accountId);
    const token = await tokens.accessToken(user, 'admin');
    const project = await api.post('/v1/projects', { token, body: { name: `demote-${Date.now()}` } });
    expect(project.status).toBe(201);

    await server.repos.users.collection.updateOne({ _id: user.id }, { $set: { role: 'viewer' } });
    server.clock.advance(PRINCIPAL_CACHE_SECONDS * 1000 + 1);
    const write = await api.patch(`/v1/projects/${project.body.id}`, { token, body: { name: 'after demotion' } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('forbidden');
    expect((await api.get(`/v1/projects/${project.body.id}`, { token })).status).toBe(200);

    await server.repos.users.collection.deleteOne({ _id: user.id });
    await refusedAfter(token, PRINCIPAL_CACHE_SECONDS);
  });
});
