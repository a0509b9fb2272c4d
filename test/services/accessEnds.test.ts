import { beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { makeUser, TEST_PASSWORD } from '../support/factories.ts';
import { useTwoInstances } from '../support/fixtures.ts';
import { AuthorizeError, tokenRequest } from '../support/oauthDriver.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';
import { v1 } from '../dashboard/support.ts';

/*
 * Role, password and membership changes end access at once on the instance that made them (through the
 * user service, whoever calls it: /v1, the dashboard or the CLI), and on another instance within the
 * session cache bound (30 s) and principal cache bound (principalCacheSeconds).
 */
// Two instances of one deployment: the same database, keys and clock.
const two = useTwoInstances();
let server: TestServer, second: TestServer;
let tokens: Tokens;

beforeAll(() => {
  ({ first: server, second } = two);
  tokens = new Tokens(server);
});

const sessionOn = (instance: TestServer, user: { _id: string; account_id: string }) => instance.running.container.sessions.create(user._id, user.account_id);

/** A dashboard page only an admin may open (the confirm page for removing a user). */
const adminPage = async (instance: TestServer, cookie: string, userId: string) =>
  (await fetch(`${instance.url}/dashboard/settings/users/${userId}/remove`, { headers: { cookie: `slipway_session=${cookie}` }, redirect: 'manual' })).status;

const refresh = async (clientId: string, refreshToken: string) => {
  try {
    await tokenRequest(server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: refreshToken });
    return 200;
  } catch (err) {
    if (err instanceof AuthorizeError) return err.status;
    throw err;
  }
};

const asTestUser = (doc: Awaited<ReturnType<typeof makeUser>>): TestUser => ({ id: doc._id, email: doc.email, password: doc.password, role: doc.role, accountId: doc.account_id });

describe('a demotion', () => {
  it('via /v1: the demoted user’s next dashboard request sees the new role at once here, and within the session cache bound on another instance', async () => {
    const owner = await makeUser(server, { role: 'owner' });
    const admin = await makeUser(server, { role: 'admin', account_id: owner.account_id });
    const { token: here } = await sessionOn(server, admin);
    const { token: there } = await sessionOn(second, admin);
    expect(await adminPage(server, here, owner._id)).toBe(200);
    expect(await adminPage(second, there, owner._id)).toBe(200);
    // The admin's access token too (the principal cache).
    const adminToken = await tokens.accessToken(asTestUser(admin), 'admin');
    expect((await v1(server, '/v1/webhooks', { bearer: adminToken })).status).toBe(200);

    const { token: ownerSession } = await sessionOn(server, owner);
    const demoted = await v1(server, `/v1/users/${admin._id}`, { bearer: ownerSession }, { method: 'PATCH', body: { role: 'viewer' } });
    expect(demoted.status).toBe(200);

    expect(await adminPage(server, here, owner._id)).toBe(403);
    expect((await v1(server, '/v1/webhooks', { bearer: adminToken })).status).toBe(403);
    expect((await v1(server, '/v1/projects', { bearer: here }, { method: 'POST', body: { name: 'after demotion' } })).status).toBe(403);

    // The other instance trusts its cached session for at most 30 s (and the user for principalCacheSeconds, less):
    // once the clock they share has moved past that, the demotion has reached it.
    server.clock.advance(30_001);
    expect(await adminPage(second, there, owner._id)).toBe(403);
  }, 60_000);

  it('via the service the CLI calls (the operator): the same, at once on this instance', async () => {
    const owner = await makeUser(server, { role: 'owner' });
    const admin = await makeUser(server, { role: 'admin', account_id: owner.account_id });
    const { token } = await sessionOn(server, admin);
    expect(await adminPage(server, token, owner._id)).toBe(200);
    await server.services.users.update(systemPrincipal(owner.account_id), admin._id, { role: 'developer' });
    expect(await adminPage(server, token, owner._id)).toBe(403);
  });
});

describe('a password change', () => {
  it('of one’s own (/v1 with a dashboard session): the other session and the refresh token are refused at once; the current session keeps working', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { token: current } = await sessionOn(server, user);
    const { token: other } = await sessionOn(server, user);
    const app = await tokens.forUser(asTestUser(user), 'read', { withRefresh: true });
    expect(app.refresh_token).toBeTruthy();
    expect((await v1(server, '/v1/users/me', { bearer: other })).status).toBe(200);
    expect((await v1(server, '/v1/users/me', { bearer: app.access_token })).status).toBe(200);

    const changed = await v1(server, '/v1/users/me/password', { bearer: current }, { method: 'POST', body: { current_password: TEST_PASSWORD, new_password: 'a brand new passphrase' } });
    expect(changed.status).toBe(204);

    expect((await v1(server, '/v1/users/me', { bearer: other })).status).toBe(401);
    expect((await v1(server, '/v1/users/me', { bearer: app.access_token })).status).toBe(401);
    expect(await refresh(app.clientId, app.refresh_token!)).toBe(400);
    expect((await v1(server, '/v1/users/me', { bearer: current })).status).toBe(200);
    expect(await server.repos.sessions.collection.countDocuments({ user_id: user._id })).toBe(1);
  });

  it('of one’s own with an app’s access token: that grant keeps working, every session ends', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { token: session } = await sessionOn(server, user);
    const app = await tokens.forUser(asTestUser(user), 'read', { withRefresh: true });
    const changed = await v1(server, '/v1/users/me/password', { bearer: app.access_token }, { method: 'POST', body: { current_password: TEST_PASSWORD, new_password: 'another new passphrase' } });
    expect(changed.status).toBe(204);
    expect((await v1(server, '/v1/users/me', { bearer: session })).status).toBe(401);
    expect((await v1(server, '/v1/users/me', { bearer: app.access_token })).status).toBe(200);
    expect(await refresh(app.clientId, app.refresh_token!)).toBe(200);
  });

  it('set by the operator (slipway users set-password): every session, access token and refresh token is refused', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { token: session } = await sessionOn(server, user);
    const app = await tokens.forUser(asTestUser(user), 'read', { withRefresh: true });
    await server.services.users.setPassword(systemPrincipal(user.account_id), user._id, { password: 'operator chosen passphrase' });
    expect((await v1(server, '/v1/users/me', { bearer: session })).status).toBe(401);
    expect((await v1(server, '/v1/users/me', { bearer: app.access_token })).status).toBe(401);
    expect(await refresh(app.clientId, app.refresh_token!)).toBe(400);
  });

  it('set with a setup link (a reset): every session, access token and refresh token is refused', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { token: session } = await sessionOn(server, user);
    const app = await tokens.forUser(asTestUser(user), 'read', { withRefresh: true });
    const link = await server.services.users.issueSetupToken(systemPrincipal(user.account_id), user._id);
    await server.services.users.completeSetup(link.token, { password: 'a reset passphrase, long enough' });
    expect((await v1(server, '/v1/users/me', { bearer: session })).status).toBe(401);
    expect((await v1(server, '/v1/users/me', { bearer: app.access_token })).status).toBe(401);
    expect(await refresh(app.clientId, app.refresh_token!)).toBe(400);
  });
});
