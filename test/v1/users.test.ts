import { beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, obtainTokens, tokenRequest } from '../support/oauthDriver.ts';
import { SessionService } from '../../src/services/sessions.ts';
import type { Api } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { acceptInvitation, TEST_PASSWORD } from '../support/factories.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * Users over HTTP (docs/product.md §5): the account's users, admin changes with the owner rules, a user's own
 * password, and removal ending every credential the user had.
 */

/** How long this server trusts a loaded user and the revoked-grant list (at most 30 s); the tests move its clock past it. */
const BOUND_SECONDS = 20;

const env = useApiServer({ overrides: { principalCacheSeconds: BOUND_SECONDS, revocationRefreshSeconds: BOUND_SECONDS } });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, ownerToken: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: ownerToken } = env));

let n = 0;
const email = () => `person-${++n}-${Date.now()}@example.com`;

/** Once the server's clock has moved past BOUND_SECONDS, `token` is refused on /v1: 401 invalid_token. */
async function refusedWithinBound(token: string): Promise<void> {
  server.clock.advance(BOUND_SECONDS * 1000 + 1);
  expectRefused(await api.get('/v1/projects', { token }), 401, 'invalid_token');
}

describe('reading users', () => {
  it('lists the users of the account only; gets one; /users/me is the caller', async () => {
    const viewer = await tokens.user('viewer', owner.accountId);
    const stranger = await tokens.user('owner');
    const token = await tokens.accessToken(viewer, 'read');
    const list = await api.get('/v1/users?per_page=100', { token });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([owner.id, viewer.id]));
    expect(ids).not.toContain(stranger.id);
    expect(list.body.pagination.total).toBe(ids.length);

    const got = await api.get(`/v1/users/${owner.id}`, { token });
    expect(got.body).toEqual({
      id: owner.id,
      account_id: owner.accountId,
      email: owner.email,
      name: expect.any(String),
      role: 'owner',
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      last_login_at: expect.any(String),
    });
    expect(got.text).not.toMatch(/password|hash/i);
    const me = await api.get('/v1/users/me', { token });
    expect(me.body).toMatchObject({ id: viewer.id, role: 'viewer', email: viewer.email });
    expectRefused(await api.get(`/v1/users/${stranger.id}`, { token }), 404, 'not_found');
    expectRefused(await api.get('/v1/users/usr_nope', { token }), 404, 'not_found');
  });

  it('a client_credentials token lists users of its account, but has no /users/me (403 forbidden)', async () => {
    const { token } = await tokens.forClient(owner.accountId, 'read');
    expect((await api.get('/v1/users', { token })).status).toBe(200);
    expectRefused(await api.get('/v1/users/me', { token }), 403, 'forbidden');
    expectRefused(await api.post('/v1/users/me/password', { token, body: { current_password: 'x', new_password: 'a long new password' } }), 403, 'forbidden');
  });
});

describe('adding, changing and removing users (admin)', () => {
  it('invites a user with a first password, who signs in with it once they accepted; the email is unique (409)', async () => {
    const address = email();
    const res = await api.post('/v1/users', { token: ownerToken, body: { email: `  ${address.toUpperCase()} `, name: 'New Dev', role: 'developer', password: TEST_PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: address, name: 'New Dev', role: 'developer', status: 'invited', account_id: owner.accountId, last_login_at: null });
    expect(res.headers.get('location')).toBe(`${server.url}/v1/users/${res.body.id}`);
    const added: TestUser = { id: res.body.id, email: address, password: TEST_PASSWORD, role: 'developer', accountId: owner.accountId };
    await acceptInvitation(server, res.body, TEST_PASSWORD);
    const me = await api.get('/v1/users/me', { token: await tokens.accessToken(added, 'write') });
    expect(me.body).toMatchObject({ id: added.id, role: 'developer', status: 'active' });
    expectRefused(await api.post('/v1/users', { token: ownerToken, body: { email: address, name: 'Again', role: 'viewer' } }), 409, 'conflict');
    // The password is stored only as a memory-hard hash, on the person.
    const stored = await server.repos.identities.findByEmail(address);
    expect(stored!.password_hash).toMatch(/^\$argon2id\$|^\$scrypt/);
    expect(JSON.stringify(await dumpDatabase(server.running.container.database.db))).not.toContain(TEST_PASSWORD);
  });

  it('without a password: a one-time invitation link, shown once and stored only hashed', async () => {
    const headers = { 'idempotency-key': `user-${Date.now()}` };
    const body = { email: email(), name: 'Invited', role: 'viewer' };
    const res = await api.post('/v1/users', { token: ownerToken, body, headers });
    expect(res.status).toBe(201);
    expect(res.body.invitation_url).toMatch(new RegExp(`^${server.url}/dashboard/invitation\\?token=slwin_[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(res.body.invitation_expires_at) - Date.now()).toBeGreaterThan(7 * 24 * 3600_000 - 60_000);
    const token = new URL(res.body.invitation_url).searchParams.get('token')!;
    const replay = await api.post('/v1/users', { token: ownerToken, body, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual({ ...res.body, invitation_url: null, setup_url: null });
    expect((await api.get(`/v1/users/${res.body.id}`, { token: ownerToken })).text).not.toContain(token);
    expect(await dumpDatabase(server.running.container.database.db)).not.toContain(token);
    expect(server.logs.join('\n')).not.toContain(token);
  });

  it('validates the body (422)', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-email', name: 'X', role: 'viewer' }, 'email'],
      [{ email: email(), name: '', role: 'viewer' }, 'name'],
      [{ email: email(), name: 'X', role: 'superuser' }, 'role'],
      [{ email: email(), name: 'X', role: 'viewer', password: 'short' }, 'password'],
      [{ email: email(), name: 'X', role: 'viewer', account_id: 'acct_elsewhere' }, 'account_id'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post('/v1/users', { token: ownerToken, body });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expectRefused(await api.patch(`/v1/users/${owner.id}`, { token: ownerToken, body: {} }), 422, 'validation_failed');
  });

  it('only an owner grants the owner role or touches an owner; the last owner can be neither demoted nor removed (409)', async () => {
    const boss = await tokens.user('owner');
    const bossToken = await tokens.accessToken(boss, 'admin');
    const adminUser = await tokens.user('admin', boss.accountId);
    const adminToken = await tokens.accessToken(adminUser, 'admin');
    const dev = await tokens.user('developer', boss.accountId);

    expectRefused(await api.post('/v1/users', { token: adminToken, body: { email: email(), name: 'Co-owner', role: 'owner' } }), 403, 'forbidden');
    expectRefused(await api.patch(`/v1/users/${dev.id}`, { token: adminToken, body: { role: 'owner' } }), 403, 'forbidden');
    expectRefused(await api.patch(`/v1/users/${boss.id}`, { token: adminToken, body: { role: 'viewer' } }), 403, 'forbidden');
    expectRefused(await api.delete(`/v1/users/${boss.id}`, { token: adminToken }), 403, 'forbidden');

    // An admin manages non-owners.
    const renamed = await api.patch(`/v1/users/${dev.id}`, { token: adminToken, body: { name: 'Renamed Dev', role: 'viewer' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed Dev', role: 'viewer' });

    // The sole owner.
    expectRefused(await api.patch(`/v1/users/${boss.id}`, { token: bossToken, body: { role: 'admin' } }), 409, 'conflict');
    expectRefused(await api.delete(`/v1/users/${boss.id}`, { token: bossToken }), 409, 'conflict');
    // With a second owner, the first may step down.
    const second = await api.post('/v1/users', { token: bossToken, body: { email: email(), name: 'Second Owner', role: 'owner' } });
    expect(second.status).toBe(201);
    // An invited owner is nobody's access yet: it does not count as another owner until accepted.
    expectRefused(await api.patch(`/v1/users/${boss.id}`, { token: bossToken, body: { role: 'admin' } }), 409, 'conflict');
    await acceptInvitation(server, second.body, 'the second owner chose this');
    expect((await api.patch(`/v1/users/${boss.id}`, { token: bossToken, body: { role: 'admin' } })).body.role).toBe('admin');
    // The demotion reaches the boss's own token within the bound: then it no longer acts as an owner.
    server.clock.advance(BOUND_SECONDS * 1000 + 1);
    expectRefused(await api.delete(`/v1/users/${second.body.id}`, { token: bossToken }), 403, 'forbidden');

    const events = await api.get('/v1/events?type=user.updated', { token: await tokens.accessToken(adminUser, 'admin') });
    expect(events.body.data.map((e: { data: { user_id: string } }) => e.data.user_id)).toEqual(expect.arrayContaining([dev.id, boss.id]));
  });

  it('a client_credentials admin token manages users like an admin, never like an owner', async () => {
    const { token } = await tokens.forClient(owner.accountId, 'admin');
    const created = await api.post('/v1/users', { token, body: { email: email(), name: 'By client', role: 'viewer' } });
    expect(created.status).toBe(201);
    expect((await api.patch(`/v1/users/${created.body.id}`, { token, body: { role: 'developer' } })).body.role).toBe('developer');
    expectRefused(await api.patch(`/v1/users/${created.body.id}`, { token, body: { role: 'owner' } }), 403, 'forbidden');
    expectRefused(await api.delete(`/v1/users/${owner.id}`, { token }), 403, 'forbidden');
    expect((await api.delete(`/v1/users/${created.body.id}`, { token })).status).toBe(204);
    expectRefused(await api.get(`/v1/users/${created.body.id}`, { token }), 404, 'not_found');
  });

  it(`removing a user ends their access tokens (within ${BOUND_SECONDS} s), refresh tokens and dashboard sessions`, async () => {
    const leaving = await tokens.user('developer', owner.accountId);
    const ownClient = await tokens.publicClient(owner.accountId, true);
    const issued = await tokens.forUser(leaving, 'read write', { clientId: ownClient, withRefresh: true });
    expect(issued.refresh_token).toBeTruthy();
    const sessions = new SessionService({ ...server.repos, clock: server.clock });
    const { token: sessionToken } = await sessions.create(leaving.id, leaving.accountId);
    expect((await api.get('/v1/projects', { token: issued.access_token })).status).toBe(200);
    // Session tokens are a /v1 credential once the dashboard's authenticator is registered; whether
    // they are or not, the token must be refused after the removal (checked below).
    const sessionOnV1 = await api.get('/v1/users/me', { token: sessionToken });
    if (sessionOnV1.status !== 401) expect(sessionOnV1.body.id).toBe(leaving.id);
    expect(await sessions.authenticate(sessionToken)).not.toBeNull();

    const removed = await api.delete(`/v1/users/${leaving.id}`, { token: ownerToken });
    expect(removed.status).toBe(204);

    // Refresh tokens: at once (their grants are deleted).
    await expect(tokenRequest(server.issuer, { clientId: ownClient }, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! })).rejects.toThrow(/invalid_grant/);
    // Dashboard sessions: deleted, refused here at once and by any other instance that reads them.
    expect(await server.repos.sessions.collection.countDocuments({ user_id: leaving.id })).toBe(0);
    expectRefused(await api.get('/v1/users/me', { token: sessionToken }), 401, 'invalid_token');
    expect(await new SessionService({ ...server.repos, clock: server.clock }).authenticate(sessionToken)).toBeNull();
    // Access tokens: within the configured bound.
    await refusedWithinBound(issued.access_token);
    expectRefused(await api.get(`/v1/users/${leaving.id}`, { token: ownerToken }), 404, 'not_found');
    const event = await api.get('/v1/events?type=user.deleted', { token: ownerToken });
    expect(event.body.data[0].data).toMatchObject({ user_id: leaving.id, revoked_grants: expect.any(Number) });
  });
});

describe("a user's own password", () => {
  it('changes with the current password (204): the new one signs in, the old one no longer does', async () => {
    const user = await tokens.user('viewer', owner.accountId);
    const token = await tokens.accessToken(user, 'read');
    const path = '/v1/users/me/password';
    const wrong = await api.post(path, { token, body: { current_password: 'not my password', new_password: 'a brand new password' } });
    expectRefused(wrong, 422, 'validation_failed');
    expect(wrong.body.error.details).toEqual([{ field: 'current_password', message: expect.any(String) }]);
    expectRefused(await api.post(path, { token, body: { current_password: TEST_PASSWORD, new_password: TEST_PASSWORD } }), 422, 'validation_failed');
    expectRefused(await api.post(path, { token, body: { current_password: TEST_PASSWORD, new_password: 'short' } }), 422, 'validation_failed');

    const changed = await api.post(path, { token, body: { current_password: TEST_PASSWORD, new_password: 'a brand new password' } });
    expect(changed.status).toBe(204);
    const client = await tokens.publicClient(owner.accountId);
    const signIn = (password: string) =>
      obtainTokens({ issuer: server.issuer, clientId: client, redirectUri: 'http://127.0.0.1:9/callback', scope: 'read', email: user.email, password }, new CookieJar());
    expect((await signIn('a brand new password')).access_token).toBeTruthy();
    await expect(signIn(TEST_PASSWORD)).rejects.toThrow();
    expect(server.logs.join('\n')).not.toContain('a brand new password');
  });
});
