import { createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, base64url, generateKeyPair } from 'jose';
import { Api } from '../support/api.ts';
import { race, tokenPost, type TokenAnswer } from '../support/concurrency.ts';
import { dpopCall, dpopProof, newDpopKey } from '../support/dpop.ts';
import { createProject, expectRefused, useApiServer, useTestServer, useTwoInstances } from '../support/fixtures.ts';
import { newIssuerKey, startTestIssuer, type TestIssuer } from '../support/oidcIssuer.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

/**
 * CI without stored secrets (docs/product.md §13): trust policies under /v1 and the RFC 8693 token
 * exchange at the token endpoint, against CI issuers started here on loopback (discovery + JWKS, each
 * request counted): a GitHub-Actions-shaped token exchanged and deploying where its policy allows, the
 * refusals (one body whether or not any project trusts the issuer), single use on one and two
 * instances, key rotation and the fetch budget.
 */

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const REFUSED = { error: 'invalid_grant', error_description: 'The subject token is not acceptable.' };
const OVERRIDES = {
  federationAllowLoopback: true,
  tokenFailuresPerSourcePerMinute: 1_000_000,
  tokenFailuresPerClientAndSourcePerMinute: 1_000_000,
  revocationRefreshSeconds: 0.2,
  webhookPollIntervalMs: 60_000,
};

const env = useApiServer({ overrides: OVERRIDES });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, admin: string;
/** Trusted by projects of this file; `untrusted` by none. */
let issuer: TestIssuer, untrusted: TestIssuer;
beforeAll(async () => {
  ({ server, api, tokens, owner, adminToken: admin } = env);
  [issuer, untrusted] = await Promise.all([startTestIssuer(), startTestIssuer()]);
});
afterAll(async () => {
  await Promise.all([issuer?.close(), untrusted?.close()]);
});

let repo = 100_000;
/** A repository of its own for each test, so policies of one test never match another's tokens. */
const newRepository = () => String(++repo);

/** The claims GitHub Actions puts in its ID token, for `repository_id` (aud: this server's base URL). */
function githubClaims(repositoryId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: `repo:acme/app-${repositoryId}:environment:production`,
    aud: server.url,
    repository: `acme/app-${repositoryId}`,
    repository_id: repositoryId,
    repository_owner: 'acme',
    repository_owner_id: '4242',
    ref: 'refs/heads/main',
    environment: 'production',
    ...overrides,
  };
}

/** A token of `from` signed now by the server's clock (moved by some tests). */
const signed = (from: TestIssuer, claims: Record<string, unknown>, options: Parameters<TestIssuer['sign']>[1] = {}) => from.sign(claims, { now: server.clock.now(), ...options });

async function trust(projectId: string, body: Record<string, unknown>, on: Api = api, token = admin) {
  return await on.post(`/v1/projects/${projectId}/trust_policies`, { token, body: { name: 'GitHub Actions', scopes: ['read', 'write'], ...body } });
}

/** A project that trusts `issuer` for the repository's main branch, deploying to production only. */
async function trustedProject(repositoryId: string, extra: Record<string, unknown> = {}): Promise<{ projectId: string; policyId: string }> {
  const projectId = (await createProject(api, admin)).id as string;
  const res = await trust(projectId, { issuer: issuer.url, claims: { repository_id: repositoryId, repository_owner_id: '4242', ref: 'refs/heads/main' }, environments: ['production'], ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { projectId, policyId: res.body.id };
}

async function exchange(on: Pick<TestServer, 'url'>, subjectToken: string, form: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<TokenAnswer> {
  return await tokenPost(on, { grant_type: GRANT, subject_token: subjectToken, subject_token_type: JWT_TYPE, ...form }, headers);
}

describe('trust policies under /v1', () => {
  it('creates, lists, reads and deletes a policy; the audience defaults to the base URL, the lifetime to 900 s', async () => {
    const projectId = (await createProject(api, admin)).id;
    const created = await trust(projectId, { issuer: issuer.url, claims: { repository_id: '1', ref: 'refs/heads/main' }, scopes: ['write'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${server.url}/v1/projects/${projectId}/trust_policies/${created.body.id}`);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^tp_[0-9a-z]{26}$/),
      project_id: projectId,
      name: 'GitHub Actions',
      issuer: issuer.url,
      audience: server.url,
      claims: { repository_id: '1', ref: 'refs/heads/main' },
      scopes: ['write'],
      environments: null,
      max_ttl_seconds: 900,
      created_at: expect.any(String),
      created_by: { type: 'user', id: owner.id },
    });
    const list = await api.get(`/v1/projects/${projectId}/trust_policies`, { token: admin });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await api.get(`/v1/projects/${projectId}/trust_policies/${created.body.id}`, { token: admin })).body).toEqual(created.body);
    expect((await api.delete(`/v1/projects/${projectId}/trust_policies/${created.body.id}`, { token: admin })).status).toBe(204);
    expectRefused(await api.get(`/v1/projects/${projectId}/trust_policies/${created.body.id}`, { token: admin }), 404, 'not_found');
  });

  it('refuses what a policy may not be: 422 on the field', async () => {
    const projectId = (await createProject(api, admin)).id;
    const base = { issuer: issuer.url, claims: { repository_id: '1' } };
    const refusedField = async (body: Record<string, unknown>) => {
      const res = await trust(projectId, { ...base, ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      return res.body.error.details.map((d: { field: string }) => d.field);
    };
    expect(await refusedField({ issuer: 'http://ci.example.com' })).toEqual(['issuer']);
    expect(await refusedField({ issuer: 'ftp://ci.example.com' })).toEqual(['issuer']);
    expect(await refusedField({ claims: { iss: issuer.url, aud: server.url } })).toEqual(['claims']);
    expect(await refusedField({ claims: {} })).toEqual(['claims']);
    expect(await refusedField({ max_ttl_seconds: 59 })).toEqual(['max_ttl_seconds']);
    expect(await refusedField({ max_ttl_seconds: 3601 })).toEqual(['max_ttl_seconds']);
    expect(await refusedField({ scopes: ['admin'] })).toEqual(['scopes.0']);
  });

  it('is the admin scope\'s, and never a project credential\'s (API key: 403)', async () => {
    const projectId = (await createProject(api, admin)).id;
    const write = await tokens.accessToken(owner, 'write');
    expectRefused(await api.get(`/v1/projects/${projectId}/trust_policies`, { token: write }), 403, 'insufficient_scope');
    const key = await api.post(`/v1/projects/${projectId}/api_keys`, { token: admin, body: { name: 'ci', scopes: ['read', 'write', 'admin'] } });
    expectRefused(await trust(projectId, { issuer: issuer.url, claims: { repository_id: '1' } }, api, key.body.key), 403, 'forbidden');
  });
});

describe('exchanging a GitHub Actions token', () => {
  it('answers an access token acting as the project: deploys to the policy\'s environment, 403 elsewhere, nothing of other projects', async () => {
    const repositoryId = newRepository();
    const { projectId, policyId } = await trustedProject(repositoryId, { max_ttl_seconds: 600 });
    const res = await exchange(server, await signed(issuer, githubClaims(repositoryId)));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'read write',
    });
    expect(res.headers.get('cache-control')).toContain('no-store');
    const token = res.body.access_token!;

    const deployed = await api.post(`/v1/projects/${projectId}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    expect(deployed.status).toBe(201);
    expect(deployed.body.created_by).toEqual({ type: 'federated', id: policyId });
    expectRefused(await api.post(`/v1/projects/${projectId}/deployments`, { token, body: { environment: 'staging', branch: 'main' } }), 403, 'forbidden');
    expect((await api.get(`/v1/projects/${projectId}/deployments`, { token })).status).toBe(200);

    // Other projects: of the same account and of another, as if they did not exist.
    const sibling = (await createProject(api, admin)).id;
    expectRefused(await api.get(`/v1/projects/${sibling}`, { token }), 404, 'not_found');
    expectRefused(await api.post(`/v1/projects/${sibling}/deployments`, { token, body: { environment: 'production', branch: 'main' } }), 404, 'not_found');
    const stranger = await tokens.user('owner');
    const foreign = (await createProject(api, await tokens.accessToken(stranger, 'admin'))).id;
    expectRefused(await api.get(`/v1/projects/${foreign}`, { token }), 404, 'not_found');
    // Never what only the account's people do.
    expectRefused(await api.post('/v1/projects', { token, body: { name: 'nope' } }), 403, 'forbidden');
    expectRefused(await trust(projectId, { issuer: issuer.url, claims: { repository_id: '1' } }, api, token), 403, 'forbidden');
  });

  it('records token.exchanged in the project\'s events: the issuer, sub and matched claims', async () => {
    const repositoryId = newRepository();
    const { projectId, policyId } = await trustedProject(repositoryId);
    const claims = githubClaims(repositoryId);
    expect((await exchange(server, await signed(issuer, claims))).status).toBe(200);
    const events = await api.get(`/v1/events?type=token.exchanged&project_id=${projectId}`, { token: admin });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({
      type: 'token.exchanged',
      project_id: projectId,
      actor: { type: 'federated', id: policyId },
      data: { trust_policy_id: policyId, issuer: issuer.url, sub: claims.sub, claims: { repository_id: repositoryId, repository_owner_id: '4242', ref: 'refs/heads/main' }, scopes: ['read', 'write'], expires_in: 900 },
    });
  });

  it('needs audience=proj_… when policies of several projects match, and then acts for that one', async () => {
    const repositoryId = newRepository();
    const first = await trustedProject(repositoryId);
    const second = await trustedProject(repositoryId);
    const ambiguous = await exchange(server, await signed(issuer, githubClaims(repositoryId)));
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toBe('invalid_target');
    const named = await exchange(server, await signed(issuer, githubClaims(repositoryId)), { audience: second.projectId });
    expect(named.status).toBe(200);
    expect((await api.post(`/v1/projects/${second.projectId}/deployments`, { token: named.body.access_token!, body: { environment: 'production', branch: 'main' } })).status).toBe(201);
    expectRefused(await api.get(`/v1/projects/${first.projectId}`, { token: named.body.access_token! }), 404, 'not_found');
  });

  it('takes no client authentication: a client_id or a secret with the exchange is refused', async () => {
    const repositoryId = newRepository();
    await trustedProject(repositoryId);
    const withClient = await exchange(server, await signed(issuer, githubClaims(repositoryId)), { client_id: 'cli_somebody' });
    expect(withClient.status).toBe(400);
    expect(withClient.body.error).toBe('invalid_request');
    const withBasic = await exchange(server, await signed(issuer, githubClaims(repositoryId)), {}, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    expect(withBasic.status).toBe(400);
    expect(withBasic.body.error).toBe('invalid_request');
  });

  it('asks for less with scope, never for more than the policy gives', async () => {
    const repositoryId = newRepository();
    await trustedProject(repositoryId, { scopes: ['read'] });
    const read = await exchange(server, await signed(issuer, githubClaims(repositoryId)), { scope: 'read' });
    expect(read.body.scope).toBe('read');
    const more = await exchange(server, await signed(issuer, githubClaims(repositoryId)), { scope: 'write' });
    expect(more.status).toBe(400);
    expect(more.body.error).toBe('invalid_scope');
  });

  it('binds the token to a DPoP key when a proof comes with the exchange', async () => {
    const repositoryId = newRepository();
    const { projectId } = await trustedProject(repositoryId);
    const key = await newDpopKey();
    const proof = await dpopProof(key, { htm: 'POST', htu: `${server.issuer}/token` });
    const res = await exchange(server, await signed(issuer, githubClaims(repositoryId)), {}, { dpop: proof });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    const token = res.body.access_token!;
    const path = `/v1/projects/${projectId}`;
    expect((await dpopCall(server.url, path, token, undefined, 'GET', 'Bearer')).status).toBe(401);
    const bound = await dpopCall(server.url, path, token, await dpopProof(key, { htm: 'GET', htu: `${server.url}${path}`, accessToken: token }));
    expect(bound.status).toBe(200);
  });

  it('ends every token of a policy when the policy is deleted', async () => {
    const repositoryId = newRepository();
    const { projectId, policyId } = await trustedProject(repositoryId);
    const token = (await exchange(server, await signed(issuer, githubClaims(repositoryId)))).body.access_token!;
    expect((await api.get(`/v1/projects/${projectId}`, { token })).status).toBe(200);
    expect((await api.delete(`/v1/projects/${projectId}/trust_policies/${policyId}`, { token: admin })).status).toBe(204);
    expectRefused(await api.get(`/v1/projects/${projectId}`, { token }), 401, 'invalid_token');
  });
});

describe('refusals tell nothing of which projects trust an issuer', () => {
  /**
   * The same flawed token from `issuer` (trusted by a project, for the repository) and from `untrusted`
   * (trusted by none): both answers must be the one invalid_grant refusal (or, for what is refused
   * before any issuer is looked at, one and the same answer).
   */
  async function refusedAlike(make: (from: TestIssuer, repositoryId: string) => Promise<string>, expected: Record<string, string> = REFUSED): Promise<void> {
    const repositoryId = newRepository();
    await trustedProject(repositoryId);
    const [trusted, unknown] = await Promise.all([exchange(server, await make(issuer, repositoryId)), exchange(server, await make(untrusted, repositoryId))]);
    expect({ status: trusted.status, body: trusted.body }).toEqual({ status: 400, body: expected });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 400, body: expected });
  }

  it('a token acceptable in every other way is accepted (the cases below differ from it in one thing)', async () => {
    const repositoryId = newRepository();
    await trustedProject(repositoryId);
    expect((await exchange(server, await signed(issuer, githubClaims(repositoryId)))).status).toBe(200);
  });

  it('wrong audience', async () => {
    await refusedAlike((from, id) => signed(from, githubClaims(id, { aud: 'https://elsewhere.example.com' })));
  });

  it('a claim off by one character', async () => {
    await refusedAlike((from, id) => signed(from, githubClaims(id, { ref: 'refs/heads/mainx' })));
    await refusedAlike((from, id) => signed(from, githubClaims(id, { repository_id: `${id}0` })));
  });

  it('`*` is a character, in the token or in the policy', async () => {
    await refusedAlike((from, id) => signed(from, githubClaims(id, { ref: '*' })));
    const wildcard = (await createProject(api, admin)).id;
    expect((await trust(wildcard, { issuer: issuer.url, claims: { repository_id: '*' } })).status).toBe(201);
    await refusedAlike((from) => signed(from, githubClaims('31337')));
  });

  it('expired, and issued more than five minutes ago (by the server\'s clock)', async () => {
    const now = server.clock.now();
    await refusedAlike((from, id) => from.sign(githubClaims(id, { iat: Math.floor(now / 1000) - 400, exp: Math.floor(now / 1000) - 30 }), { now }));
    await refusedAlike((from, id) => from.sign(githubClaims(id, { iat: Math.floor(now / 1000) - 600, exp: Math.floor(now / 1000) + 600 }), { now }));
  });

  it('alg none, and HS256 signed with the issuer\'s public key', async () => {
    const unsigned = (from: TestIssuer, id: string) => {
      const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
      const iat = Math.floor(server.clock.now() / 1000);
      const payload = base64url.encode(JSON.stringify({ iss: from.url, iat, exp: iat + 300, jti: `none-${id}`, ...githubClaims(id) }));
      return Promise.resolve(`${header}.${payload}.`);
    };
    await refusedAlike(unsigned);
    const hmacWithPublicKey = async (from: TestIssuer, id: string) => {
      const pem = createPublicKey({ key: from.keys[0]!.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      const iat = Math.floor(server.clock.now() / 1000);
      return await new SignJWT({ iss: from.url, iat, exp: iat + 300, jti: `hs-${id}`, ...githubClaims(id) })
        .setProtectedHeader({ alg: 'HS256', kid: from.keys[0]!.kid })
        .sign(new TextEncoder().encode(pem.toString()));
    };
    await refusedAlike(hmacWithPublicKey);
  });

  it('signed by another issuer\'s key, its kid copied', async () => {
    await refusedAlike((from, id) => signed(from, githubClaims(id), { key: (from === issuer ? untrusted : issuer).keys[0]! }));
    // And by a key no issuer serves.
    const stranger = await newIssuerKey('ES256');
    await refusedAlike((from, id) => signed(from, githubClaims(id), { key: stranger }));
  });

  it('larger than 16 KiB (refused before anything else is read)', async () => {
    await refusedAlike((from, id) => signed(from, githubClaims(id, { padding: 'x'.repeat(17 * 1024) })), {
      error: 'invalid_request',
      error_description: 'subject_token is larger than 16384 bytes.',
    });
  });

  it('used already', async () => {
    const repositoryId = newRepository();
    await trustedProject(repositoryId);
    const token = await signed(issuer, githubClaims(repositoryId));
    expect((await exchange(server, token)).status).toBe(200);
    const again = await exchange(server, token);
    expect({ status: again.status, body: again.body }).toEqual({ status: 400, body: REFUSED });
  });
});

describe('the failure budgets', () => {
  const strict = useTestServer({ overrides: { ...OVERRIDES, tokenFailuresPerSourcePerMinute: 3, tokenFailuresPerClientAndSourcePerMinute: 1_000_000 } });
  it('count refused exchanges: past the budget even an acceptable token is answered 429', async () => {
    strict.clock.startOfNextWindow();
    const strictApi = await Api.connect(strict.url);
    const strictTokens = new Tokens(strict);
    const strictAdmin = await strictTokens.accessToken(await strictTokens.user('owner'), 'admin');
    const projectId = (await createProject(strictApi, strictAdmin)).id;
    expect((await trust(projectId, { issuer: issuer.url, audience: strict.url, claims: { repository_id: '5' } }, strictApi, strictAdmin)).status).toBe(201);
    const claims = { aud: strict.url, repository_id: '5', sub: 'repo:acme/budget' };
    for (let i = 0; i < 3; i++) expect((await exchange(strict, await issuer.sign({ ...claims, repository_id: '6' }, { now: strict.clock.now() }))).body).toEqual(REFUSED);
    const over = await exchange(strict, await issuer.sign(claims, { now: strict.clock.now() }));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('single use: one token, many exchanges at once', () => {
  it('on one instance: 10 concurrent exchanges of one token issue one access token', async () => {
    const repositoryId = newRepository();
    await trustedProject(repositoryId);
    const token = await signed(issuer, githubClaims(repositoryId));
    const answers = await race(10, () => exchange(server, token));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body).toEqual(REFUSED);
  });

  describe('on two instances', () => {
    const two = useTwoInstances({ overrides: OVERRIDES });
    it('10 concurrent exchanges of one token spread over both issue one access token, and one key fetch serves both', async () => {
      const { first, both } = two;
      const ci = await startTestIssuer();
      try {
        const firstApi = await Api.connect(first.url);
        const firstTokens = new Tokens(first);
        const firstAdmin = await firstTokens.accessToken(await firstTokens.user('owner'), 'admin');
        const projectId = (await createProject(firstApi, firstAdmin)).id;
        const created = await trust(projectId, { issuer: ci.url, audience: first.url, claims: { repository_id: '77' } }, firstApi, firstAdmin);
        expect(created.status).toBe(201);
        const token = await ci.sign({ aud: first.url, repository_id: '77', sub: 'repo:acme/x' }, { now: first.clock.now() });
        const answers = await race(10, (i) => exchange(both[i % 2]!, token));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.body).toEqual(REFUSED);
        expect(ci.fetches).toEqual({ discovery: 1, jwks: 1 });
      } finally {
        await ci.close();
      }
    });
  });
});

describe('the issuer\'s keys', () => {
  /** `test` with a project trusting a fresh issuer of its own (fetch counts start at zero), closed after. */
  async function withOwnIssuer(test: (ci: TestIssuer, claims: Record<string, unknown>) => Promise<void>): Promise<void> {
    const ci = await startTestIssuer();
    try {
      const projectId = (await createProject(api, admin)).id;
      expect((await trust(projectId, { issuer: ci.url, claims: { repository_id: '9' } })).status).toBe(201);
      await test(ci, { aud: server.url, repository_id: '9', sub: 'repo:acme/keys' });
    } finally {
      await ci.close();
    }
  }

  it('are fetched once and kept: many exchanges, one discovery and one JWKS fetch', async () => {
    await withOwnIssuer(async (ci, claims) => {
      for (const answer of await race(5, async () => exchange(server, await signed(ci, claims)))) expect(answer.status).toBe(200);
      expect(ci.fetches).toEqual({ discovery: 1, jwks: 1 });
    });
  });

  it('a rotated key is accepted after one fetch, once a minute has passed since the last', async () => {
    await withOwnIssuer(async (ci, claims) => {
      expect((await exchange(server, await signed(ci, claims))).status).toBe(200);
      const rotated = await ci.rotate({ retire: true, alg: 'ES256' });
      server.clock.advance(61_000);
      const answer = await exchange(server, await signed(ci, claims, { key: rotated }));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(ci.fetches).toEqual({ discovery: 2, jwks: 2 });
    });
  });

  it('a flood of unknown kids fetches at most once a minute', async () => {
    await withOwnIssuer(async (ci, claims) => {
      expect((await exchange(server, await signed(ci, claims))).status).toBe(200);
      expect(ci.fetches.jwks).toBe(1);
      const forged = async () => signed(ci, claims, { key: await newIssuerKey('ES256') });
      // Within the minute of the first fetch: none.
      for (const answer of await race(10, async () => exchange(server, await forged()))) expect(answer.body).toEqual(REFUSED);
      expect(ci.fetches.jwks).toBe(1);
      // A minute later: one for the whole flood, then none again.
      server.clock.advance(61_000);
      for (const answer of await race(10, async () => exchange(server, await forged()))) expect(answer.body).toEqual(REFUSED);
      expect(ci.fetches.jwks).toBe(2);
      for (const answer of await race(10, async () => exchange(server, await forged()))) expect(answer.body).toEqual(REFUSED);
      expect(ci.fetches.jwks).toBe(2);
    });
  });

  it('are kept at most ten minutes', async () => {
    await withOwnIssuer(async (ci, claims) => {
      expect((await exchange(server, await signed(ci, claims))).status).toBe(200);
      server.clock.advance(10 * 60_000 + 1_000);
      expect((await exchange(server, await signed(ci, claims))).status).toBe(200);
      expect(ci.fetches).toEqual({ discovery: 2, jwks: 2 });
    });
  });

  it('are never fetched from an address the webhook rules refuse (link-local: cloud metadata)', async () => {
    const projectId = (await createProject(api, admin)).id;
    // The rule is the webhooks' (src/services/webhookTargets.ts), checked before every fetch.
    const res = await trust(projectId, { issuer: 'https://169.254.169.254', claims: { repository_id: '1' } });
    expect(res.status).toBe(201);
    const { privateKey } = await generateKeyPair('RS256');
    const iat = Math.floor(server.clock.now() / 1000);
    const token = await new SignJWT({ iss: 'https://169.254.169.254', aud: server.url, repository_id: '1', iat, exp: iat + 300, jti: 'metadata' }).setProtectedHeader({ alg: 'RS256', kid: 'k' }).sign(privateKey);
    const answer = await exchange(server, token);
    expect(answer.body).toEqual(REFUSED);
    expect(server.logs.some((line) => line.includes('issuer keys not fetched') && line.includes('linkLocal'))).toBe(true);
  });
});
