import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import type { Api, ApiResponse } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/** OAuth clients over HTTP (docs/product.md §4): RFC 7591 names, the secret shown once, rotation, deletion. */

/** How long this server trusts a loaded client (at most 30 s); the tests move its clock past it. */
const BOUND_SECONDS = 20;

const env = useApiServer({ overrides: { principalCacheSeconds: BOUND_SECONDS, revocationRefreshSeconds: BOUND_SECONDS } });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, admin: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: admin } = env));
const secrets: string[] = [];

const CONFIDENTIAL = { client_name: 'Deployer', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], scope: 'read write' };

async function register(body: Record<string, unknown>): Promise<ApiResponse['body']> {
  const res = await api.post('/v1/oauth_clients', { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (res.body.client_secret) secrets.push(res.body.client_secret);
  return res.body;
}

describe('registering clients', () => {
  it('a public client: RFC 7591 fields, defaults, no secret', async () => {
    const res = await api.post('/v1/oauth_clients', { token: admin, body: { client_name: 'SPA', redirect_uris: ['https://app.example.com/callback'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^cli_[A-Za-z0-9]+$/),
      client_name: 'SPA',
      redirect_uris: ['https://app.example.com/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read write admin',
      first_party: false,
      dpop_bound_access_tokens: false,
      require_pushed_authorization_requests: false,
      account_id: owner.accountId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      client_secret: null,
    });
    expect(res.headers.get('location')).toBe(`${server.url}/v1/oauth_clients/${res.body.client_id}`);
    const { client_secret: _none, ...client } = res.body;
    expect((await api.get(`/v1/oauth_clients/${res.body.client_id}`, { token: admin })).body).toEqual(client);
  });

  it('a public client that requires DPoP and pushed authorization requests: the settings are kept and shown', async () => {
    const made = await register({ client_name: 'Mobile', redirect_uris: ['com.example.app:/callback'], dpop_bound_access_tokens: true, require_pushed_authorization_requests: true });
    expect(made).toMatchObject({ dpop_bound_access_tokens: true, require_pushed_authorization_requests: true });
    const got = await api.get(`/v1/oauth_clients/${made.client_id}`, { token: admin });
    expect(got.body).toMatchObject({ dpop_bound_access_tokens: true, require_pushed_authorization_requests: true });
    const refused = await api.post('/v1/oauth_clients', { token: admin, body: { client_name: 'X', redirect_uris: ['https://a.example/cb'], dpop_bound_access_tokens: 'yes' } });
    expect(refused.status).toBe(422);
  });

  it('a confidential client: the secret once, which works at the token endpoint; never in list, get or the database', async () => {
    const made = await register(CONFIDENTIAL);
    expect(made.client_secret).toMatch(/^slwcs_/);
    const issued = await tokenRequest(server.issuer, { clientId: made.client_id, clientSecret: made.client_secret }, { grant_type: 'client_credentials', scope: 'write' });
    const created = await api.post('/v1/projects', { token: issued.access_token, body: { name: `by-client-${Date.now()}` } });
    expect(created.status).toBe(201);

    const list = await api.get('/v1/oauth_clients?per_page=100', { token: admin });
    expect(list.body.data.map((c: { client_id: string }) => c.client_id)).toContain(made.client_id);
    expect(list.text).not.toContain(made.client_secret);
    expect((await api.get(`/v1/oauth_clients/${made.client_id}`, { token: admin })).text).not.toContain(made.client_secret);
  });

  it('an Idempotency-Key replay registers nothing new and does not show the secret again', async () => {
    const headers = { 'idempotency-key': `client-${Date.now()}` };
    const body = { ...CONFIDENTIAL, client_name: 'Idempotent' };
    const first = await api.post('/v1/oauth_clients', { token: admin, body, headers });
    secrets.push(first.body.client_secret);
    const again = await api.post('/v1/oauth_clients', { token: admin, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, client_secret: null });
    expect(await server.repos.oauthClients.collection.countDocuments({ account_id: owner.accountId, client_name: 'Idempotent' })).toBe(1);
  });

  it('redirect URIs: https, http on loopback (any port), private-use schemes; nothing else (422)', async () => {
    await register({ client_name: 'Native', redirect_uris: ['http://127.0.0.1:53127/cb', 'http://[::1]/cb', 'com.example.app:/oauth2redirect'] });
    const bad: [Record<string, unknown>, string][] = [
      [{ client_name: 'X', redirect_uris: ['http://app.example.com/cb'] }, 'redirect_uris.0'],
      [{ client_name: 'X', redirect_uris: ['https://app.example.com/cb#frag'] }, 'redirect_uris.0'],
      [{ client_name: 'X', redirect_uris: ['https://*.example.com/cb'] }, 'redirect_uris.0'],
      [{ client_name: 'X', redirect_uris: ['javascript:alert(1)'] }, 'redirect_uris.0'],
      [{ client_name: 'X', redirect_uris: [] }, 'redirect_uris'],
      [{ client_name: 'X', grant_types: ['client_credentials'] }, 'grant_types'],
      [{ client_name: 'X', redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] }, 'grant_types.0'],
      [{ client_name: 'X', redirect_uris: ['https://a.example/cb'], scope: 'read openid' }, 'scope'],
      [{ client_name: 'X', redirect_uris: ['https://a.example/cb'], account_id: 'acct_other' }, 'account_id'],
      [{ client_name: 'X', redirect_uris: ['https://a.example/cb'], client_secret: 'mine' }, 'client_secret'],
    ];
    for (const [body, field] of bad) {
      const res = await api.post('/v1/oauth_clients', { token: admin, body });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field), JSON.stringify(body)).toContain(field);
    }
  });
});

describe('rotating and deleting', () => {
  it('rotating a secret: the new one works, the old one stops at once; a public client has none (409)', async () => {
    const made = await register(CONFIDENTIAL);
    const res = await api.post(`/v1/oauth_clients/${made.client_id}/rotate_secret`, { token: admin });
    expect(res.status).toBe(200);
    secrets.push(res.body.client_secret);
    expect(res.body).toMatchObject({ client_id: made.client_id, client_secret: expect.stringMatching(/^slwcs_/) });
    expect(res.body.client_secret).not.toBe(made.client_secret);
    const request = (secret: string) => tokenRequest(server.issuer, { clientId: made.client_id, clientSecret: secret }, { grant_type: 'client_credentials', scope: 'read' });
    await expect(request(made.client_secret)).rejects.toThrow(/invalid_client/);
    expect((await request(res.body.client_secret)).access_token).toBeTruthy();

    const spa = await register({ client_name: 'SPA', redirect_uris: ['https://app.example.com/cb'] });
    expectRefused(await api.post(`/v1/oauth_clients/${spa.client_id}/rotate_secret`, { token: admin }), 409, 'conflict');
  });

  it(`deleting a client: its client_credentials tokens are refused within ${BOUND_SECONDS} s, its users' refresh tokens at once`, async () => {
    const made = await register(CONFIDENTIAL);
    const issued = await tokenRequest(server.issuer, { clientId: made.client_id, clientSecret: made.client_secret }, { grant_type: 'client_credentials', scope: 'read' });
    const user = await tokens.user('developer', owner.accountId);
    const app = await tokens.publicClient(owner.accountId, true);
    const userTokens = await tokens.forUser(user, 'read', { clientId: app, withRefresh: true });
    expect((await api.get('/v1/projects', { token: issued.access_token })).status).toBe(200);
    expect((await api.get('/v1/projects', { token: userTokens.access_token })).status).toBe(200);

    expect((await api.delete(`/v1/oauth_clients/${made.client_id}`, { token: admin })).status).toBe(204);
    expect((await api.delete(`/v1/oauth_clients/${app}`, { token: admin })).status).toBe(204);
    await expect(tokenRequest(server.issuer, { clientId: app }, { grant_type: 'refresh_token', refresh_token: userTokens.refresh_token! })).rejects.toThrow(/invalid_(grant|client)/);
    server.clock.advance(BOUND_SECONDS * 1000 + 1);
    for (const token of [issued.access_token, userTokens.access_token]) expectRefused(await api.get('/v1/projects', { token }), 401, 'invalid_token');
    expectRefused(await api.get(`/v1/oauth_clients/${made.client_id}`, { token: admin }), 404, 'not_found');
    expectRefused(await api.delete(`/v1/oauth_clients/${made.client_id}`, { token: admin }), 404, 'not_found');
  });

  it("another account's clients are 404 for every operation", async () => {
    const made = await register(CONFIDENTIAL);
    const theirs = await tokens.accessToken(await tokens.user('owner'), 'admin');
    expectRefused(await api.get(`/v1/oauth_clients/${made.client_id}`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.post(`/v1/oauth_clients/${made.client_id}/rotate_secret`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.delete(`/v1/oauth_clients/${made.client_id}`, { token: theirs }), 404, 'not_found');
    expect((await api.get('/v1/oauth_clients', { token: theirs })).text).not.toContain(made.client_id);
    expect((await api.get(`/v1/oauth_clients/${made.client_id}`, { token: admin })).status).toBe(200);
  });

  it('no client secret is stored or logged in plaintext', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    const dump = await dumpDatabase(server.running.container.database.db);
    const logs = server.logs.join('\n');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
