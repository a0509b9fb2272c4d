import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import type { Api } from '../support/api.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { Tokens } from '../support/tokens.ts';

/*
 * Revocation takes effect on the very next request of the instance that made it (this one keeps the
 * default 15 s refresh, so only the local path can explain it), and within REVOCATION_REFRESH_SECONDS on
 * a second instance on the same database (started here with a small bound, as a setting allows, and the
 * clock of the first, moved past that bound instead of waiting for it).
 */
const env = useApiServer();
const OTHER_BOUND_SECONDS = 1;
let api: Api, tokens: Tokens, server: TestServer, other: TestServer;

beforeAll(async () => {
  ({ api, tokens, server } = env);
  expect(server.config.revocationRefreshSeconds).toBe(15);
  other = await startTestServer({
    dbName: server.config.mongodbDb,
    keysDir: server.config.keysDir,
    clock: server.clock,
    overrides: { publicUrl: server.url, revocationRefreshSeconds: OTHER_BOUND_SECONDS, principalCacheSeconds: OTHER_BOUND_SECONDS },
  });
});
afterAll(async () => {
  await other?.stop();
});

async function status(base: string, token: string, path = '/v1/projects'): Promise<number> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

/** Once the clock the two instances share has moved past the second one's bound, it refuses the token too. */
async function refusedElsewhere(what: string, token: string, path?: string): Promise<void> {
  server.clock.advance(OTHER_BOUND_SECONDS * 1000 + 1);
  expect(await status(other.url, token, path), what).toBe(401);
}

async function revoke(token: string, clientId: string): Promise<void> {
  const res = await fetch(`${server.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId }),
  });
  expect(res.status).toBe(200);
}

describe('revocation reaches /v1', () => {
  it('RFC 7009 revocation of a refresh token: the next request here is 401, the other instance follows', async () => {
    const user = await tokens.user('developer', env.owner.accountId);
    const issued = await tokens.forUser(user, 'read', { withRefresh: true });
    expect(await status(server.url, issued.access_token)).toBe(200);
    expect(await status(other.url, issued.access_token)).toBe(200);

    await revoke(issued.refresh_token!, issued.clientId);
    expectRefused(await api.get('/v1/projects', { token: issued.access_token }), 401, 'invalid_token');
    await refusedElsewhere('revoked refresh token', issued.access_token);
  });

  it('refresh-token reuse: the grant is revoked, and its newest access token is 401 at once here', async () => {
    const user = await tokens.user('developer', env.owner.accountId);
    const issued = await tokens.forUser(user, 'read', { withRefresh: true });
    const rotated = await tokenRequest(server.issuer, { clientId: issued.clientId }, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! });
    expect(await status(server.url, rotated.access_token)).toBe(200);
    expect(await status(other.url, rotated.access_token)).toBe(200);

    await expect(tokenRequest(server.issuer, { clientId: issued.clientId }, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! })).rejects.toThrow(/invalid_grant/);
    expectRefused(await api.get('/v1/projects', { token: rotated.access_token }), 401, 'invalid_token');
    await refusedElsewhere('refresh token reuse', rotated.access_token);
  });

  it('a removed user can do nothing from the next request on, not even GET /v1/users/me (401, not 404)', async () => {
    const first = await tokens.user('owner');
    const second = await tokens.user('owner', first.accountId);
    const token = await tokens.accessToken(first, 'admin');
    expect(await status(other.url, token, '/v1/users/me')).toBe(200);
    expect((await api.get('/v1/users/me', { token })).status).toBe(200);

    // An owner removes themselves (another owner remains).
    expect((await api.delete(`/v1/users/${first.id}`, { token })).status).toBe(204);
    expectRefused(await api.get('/v1/users/me', { token }), 401, 'invalid_token');
    expectRefused(await api.post('/v1/users', { token, body: { email: `late-${Date.now()}@example.com`, name: 'Late', role: 'owner', password: 'a long enough password' } }), 401, 'invalid_token');
    await refusedElsewhere('removed user', token, '/v1/users/me');
    // The other owner is untouched, and the account still has its owner.
    const secondToken = await tokens.accessToken(second, 'admin');
    expect((await api.get('/v1/users/me', { token: secondToken })).body.role).toBe('owner');
  });

  it('the last owner cannot delete or demote themselves: 409 conflict with a clear message', async () => {
    const sole = await tokens.user('owner');
    const token = await tokens.accessToken(sole, 'admin');
    const deleted = await api.delete(`/v1/users/${sole.id}`, { token });
    expectRefused(deleted, 409, 'conflict');
    expect(deleted.body.error.message).toMatch(/last owner/);
    const demoted = await api.patch(`/v1/users/${sole.id}`, { token, body: { role: 'admin' } });
    expectRefused(demoted, 409, 'conflict');
    expect(demoted.body.error.message).toMatch(/last owner/);
    expect((await api.get('/v1/users/me', { token })).body.role).toBe('owner');
  });

  it("deleting a client: its client_credentials and users' tokens are 401 at once here, the other instance follows", async () => {
    const owner = env.owner;
    const { token: clientToken, clientId } = await tokens.forClient(owner.accountId, 'read');
    const appClient = await tokens.publicClient(owner.accountId, true);
    const userToken = (await tokens.forUser(await tokens.user('developer', owner.accountId), 'read', { clientId: appClient })).access_token;
    for (const token of [clientToken, userToken]) {
      expect(await status(server.url, token)).toBe(200);
      expect(await status(other.url, token)).toBe(200);
    }

    expect((await api.delete(`/v1/oauth_clients/${clientId}`, { token: env.adminToken })).status).toBe(204);
    expect((await api.delete(`/v1/oauth_clients/${appClient}`, { token: env.adminToken })).status).toBe(204);
    expectRefused(await api.get('/v1/projects', { token: clientToken }), 401, 'invalid_token');
    expectRefused(await api.get('/v1/projects', { token: userToken }), 401, 'invalid_token');
    await refusedElsewhere('deleted client (client_credentials token)', clientToken);
    await refusedElsewhere("deleted client (a user's token)", userToken);
  });
});
