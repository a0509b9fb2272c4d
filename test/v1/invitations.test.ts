import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api, answerShape } from '../support/api.ts';
import { race, tokenPost } from '../support/concurrency.ts';
import { dumpDatabase } from '../support/database.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { createProject, expectRefused, useApiServer, useTwoInstances } from '../support/fixtures.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';
import { openLinkPage, pressAccept, pressOnInvitation } from '../support/linkPages.ts';

/*
 * docs/product.md §11: one person, many accounts. An admin invites an address (POST /v1/users); the
 * answer is the same whether or not it signs in anywhere; the person accepts or declines on the
 * invitation page (the link is shown once); declined, expired and revoked invitations cannot be
 * accepted; of many accepts at once exactly one makes the membership; GET /v1/accounts lists a
 * person's memberships; every credential acts in one membership, and removing that one ends it alone.
 */
// Sign-ins from one address: the file's own and the races' (the per-e-mail budget still throttles a race at one sign-in).
const env = useApiServer({ overrides: { loginPerSourcePerMinute: 1000 } });
let adminA: string;
let ownerB: TestUser;

beforeAll(async () => {
  adminA = env.adminToken;
  ownerB = await env.tokens.user('owner');
});

const fresh = () => `new-${randomBytes(5).toString('hex')}@example.com`;
const INVITATION_URL = /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/invitation\?token=(slwin_[A-Za-z0-9_-]{43})$/;

async function invite(token: string, email: string, extra: Record<string, unknown> = {}) {
  const res = await env.api.post('/v1/users', { token, body: { email, name: 'Invited Person', role: 'developer', ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

async function acceptWith(url: string, password: string) {
  const opened = await openLinkPage(url);
  expect(opened.status).toBe(200);
  return await pressAccept(opened, password);
}

describe('inviting an address', () => {
  it('answers the same for the owner of another account and for a brand-new address; both accept through the page; GET /v1/accounts lists both memberships', async () => {
    const newcomer = fresh();
    const known = await invite(adminA, ownerB.email);
    const free = await invite(adminA, newcomer);
    expect(answerShape(known)).toEqual(answerShape(free));
    for (const res of [known, free]) {
      expect(res.body.status).toBe('invited');
      expect(res.body.account_id).toBe(env.owner.accountId);
      expect(res.body.invitation_url).toMatch(INVITATION_URL);
      expect(res.body.setup_url).toBe(res.body.invitation_url);
      const lasts = Date.parse(res.body.invitation_expires_at) - Date.parse(res.body.created_at);
      expect(lasts).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000);
      expect(lasts).toBeLessThan(7 * 24 * 3600 * 1000 + 5000);
    }
    // Listed as invited; the link is stored only hashed.
    const listed = await env.api.get('/v1/users?per_page=100', { token: adminA });
    expect(listed.body.data.filter((u: { status: string }) => u.status === 'invited').map((u: { id: string }) => u.id)).toEqual(expect.arrayContaining([known.body.id, free.body.id]));
    const token = INVITATION_URL.exec(known.body.invitation_url)![1]!;
    expect(await dumpDatabase(env.server.running.container.database.db)).not.toContain(token);
    expect(await env.server.repos.invitations.collection.countDocuments({ _id: sha256Hex(token) })).toBe(1);

    // The page shows the account and the role, the same form for both.
    const knownPage = await openLinkPage(known.body.invitation_url);
    const freePage = await openLinkPage(free.body.invitation_url);
    for (const page of [knownPage, freePage]) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('as <strong>developer</strong>');
      expect(page.text).toMatch(/<button type="submit" name="decision" value="accept">Accept<\/button>/);
      expect(page.text).toMatch(/value="decline"[^>]*>Decline<\/button>/);
    }
    // B's owner must sign in as themselves: a wrong password accepts nothing.
    const wrong = await pressOnInvitation(knownPage, 'accept', 'not my password at all');
    expect(wrong.status).toBe(422);
    expect((await env.server.repos.users.findById(known.body.id))!.status).toBe('invited');
    const accepted = await pressOnInvitation(knownPage, 'accept', ownerB.password);
    expect(accepted).toMatchObject({ status: 303, location: '/dashboard/login' });
    // The newcomer chooses a password (at least 12 characters).
    expect((await pressOnInvitation(freePage, 'accept', 'short')).status).toBe(422);
    expect((await pressOnInvitation(freePage, 'accept', 'the newcomer chose this')).status).toBe(303);

    // B's owner: one person, two memberships. Signing in acts in B (their first account) alone.
    const bToken = await env.tokens.accessToken(ownerB, 'read');
    const accounts = await env.api.get('/v1/accounts', { token: bToken });
    expect(accounts.status).toBe(200);
    expect(accounts.body.pagination.total).toBe(2);
    expect(accounts.body.data).toEqual(
      expect.arrayContaining([
        { account_id: ownerB.accountId, name: expect.any(String), role: 'owner', user_id: ownerB.id, current: true },
        { account_id: env.owner.accountId, name: expect.any(String), role: 'developer', user_id: known.body.id, current: false },
      ]),
    );
    // The second membership widens nothing: the token still reads B's users only, and A's are 404.
    expect((await env.api.get(`/v1/users/${known.body.id}`, { token: bToken })).status).toBe(404);
    expect((await env.api.get('/v1/users/me', { token: bToken })).body.id).toBe(ownerB.id);
    // A sees both members as active, with B's owner's e-mail.
    for (const res of [known, free]) expect((await env.api.get(`/v1/users/${res.body.id}`, { token: adminA })).body.status).toBe('active');

    // The newcomer signs in with the password chosen on the page, as A's member.
    const newcomerUser: TestUser = { id: free.body.id, email: newcomer, password: 'the newcomer chose this', role: 'developer', accountId: env.owner.accountId };
    const newcomerToken = await env.tokens.accessToken(newcomerUser, 'read');
    const mine = await env.api.get('/v1/accounts', { token: newcomerToken });
    expect(mine.body.data).toEqual([{ account_id: env.owner.accountId, name: expect.any(String), role: 'developer', user_id: free.body.id, current: true }]);
    expect(await env.server.repos.events.collection.countDocuments({ type: 'user.invitation_accepted', 'data.user_id': { $in: [known.body.id, free.body.id] } })).toBe(2);

    // Used: the link shows the invalid page.
    expect((await openLinkPage(free.body.invitation_url)).status).toBe(400);
  });

  it('a first password given by the inviter is the newcomer’s password; it never touches an address that signs in', async () => {
    const newcomer = fresh();
    const free = await invite(adminA, newcomer, { password: 'given by the inviter' });
    const known = await invite(adminA, (await env.tokens.user('owner')).email, { password: 'given by the inviter' });
    expect(answerShape(known)).toEqual(answerShape(free));
    expect((await acceptWith(free.body.invitation_url, 'something else entirely')).status).toBe(422);
    expect((await acceptWith(free.body.invitation_url, 'given by the inviter')).status).toBe(303);
    // For the address that signs in, the inviter's password is nobody's.
    expect((await acceptWith(known.body.invitation_url, 'given by the inviter')).status).toBe(422);
  });

  it('a declined and a revoked invitation cannot be accepted', async () => {
    const declined = await invite(adminA, fresh());
    const page = await openLinkPage(declined.body.invitation_url);
    expect(await pressOnInvitation(page, 'decline')).toMatchObject({ status: 200 });
    expect(await env.server.repos.users.findById(declined.body.id)).toBeNull();
    expect((await pressOnInvitation(page, 'accept', 'a long enough password')).status).toBe(400);
    expectRefused(await env.api.get(`/v1/users/${declined.body.id}`, { token: adminA }), 404, 'not_found');
    expect(await env.server.repos.events.collection.countDocuments({ type: 'user.invitation_declined', 'data.user_id': declined.body.id })).toBe(1);

    const revoked = await invite(adminA, fresh());
    const revokedPage = await openLinkPage(revoked.body.invitation_url);
    expect((await env.api.delete(`/v1/users/${revoked.body.id}`, { token: adminA })).status).toBe(204);
    expect((await pressOnInvitation(revokedPage, 'accept', 'a long enough password')).status).toBe(400);
    expect((await openLinkPage(revoked.body.invitation_url)).status).toBe(400);

  });

  it('20 accepts of one invitation at once make one membership (a new address, and one that signs in)', async () => {
    const ownerC = await env.tokens.user('owner');
    for (const [email, password] of [[fresh(), 'racing for one membership'], [ownerC.email, ownerC.password]] as const) {
      const res = await invite(adminA, email);
      const opened = await openLinkPage(res.body.invitation_url);
      const results = await race(20, () => pressOnInvitation(opened, 'accept', password));
      expect(results.filter((r) => r.status === 303)).toHaveLength(1);
      // The others: the link already answered (400), or for a sign-in, the attempts' budget spent (429).
      for (const r of results.filter((r) => r.status !== 303)) expect([400, 429]).toContain(r.status);
      expect(await env.server.repos.users.collection.countDocuments({ account_id: env.owner.accountId, email, status: 'active' })).toBe(1);
      expect(await env.server.repos.identities.collection.countDocuments({ email })).toBe(1);
      expect(await env.server.repos.events.collection.countDocuments({ type: 'user.invitation_accepted', 'data.user_id': res.body.id })).toBe(1);
    }
  });

  it('removing a member from A ends their A access tokens, refresh tokens and sessions at once; their B ones keep working', async () => {
    const person = await env.tokens.user('developer');
    const res = await invite(adminA, person.email);
    expect((await acceptWith(res.body.invitation_url, person.password)).status).toBe(303);
    const inA: TestUser = { ...person, id: res.body.id, accountId: env.owner.accountId };
    // Signed in to each account through the chooser: an access token and a refresh token bound to each.
    const tokensA = await env.tokens.forUser(inA, 'read', { withRefresh: true });
    const tokensB = await env.tokens.forUser(person, 'read', { withRefresh: true });
    expect(tokensA.refresh_token && tokensB.refresh_token).toBeTruthy();
    // A dashboard session in each account (sessions name their membership).
    const sessionA = await env.server.services.sessions.create(inA.id, inA.accountId);
    const sessionB = await env.server.services.sessions.create(person.id, person.accountId);
    for (const [token, account] of [
      [tokensA.access_token, inA.accountId],
      [sessionA.token, inA.accountId],
      [tokensB.access_token, person.accountId],
      [sessionB.token, person.accountId],
    ] as const)
      expect((await env.api.get('/v1/users/me', { token })).body.account_id).toBe(account);

    expect((await env.api.delete(`/v1/users/${inA.id}`, { token: adminA })).status).toBe(204);

    expectRefused(await env.api.get('/v1/users/me', { token: tokensA.access_token }), 401, 'invalid_token');
    expectRefused(await env.api.get('/v1/users/me', { token: sessionA.token }), 401, 'invalid_token');
    const refreshA = await tokenPost(env.server, { grant_type: 'refresh_token', refresh_token: tokensA.refresh_token!, client_id: tokensA.clientId });
    expect(refreshA.status).toBe(400);
    expect(refreshA.body.error).toBe('invalid_grant');

    expect((await env.api.get('/v1/users/me', { token: tokensB.access_token })).status).toBe(200);
    expect((await env.api.get('/v1/users/me', { token: sessionB.token })).status).toBe(200);
    const refreshB = await tokenPost(env.server, { grant_type: 'refresh_token', refresh_token: tokensB.refresh_token!, client_id: tokensB.clientId });
    expect(refreshB.status).toBe(200);
    expect((await env.api.get('/v1/users/me', { token: refreshB.body.access_token! })).body.account_id).toBe(person.accountId);
    expect((await env.api.get('/v1/accounts', { token: tokensB.access_token })).body.data).toHaveLength(1);
  });

  it('GET /v1/accounts is for people: a client and an API key are refused', async () => {
    const client = await env.tokens.forClient(env.owner.accountId, 'read');
    expectRefused(await env.api.get('/v1/accounts', { token: client.token }), 403, 'forbidden');
    const project = await createProject(env.api, adminA);
    const key = await env.api.post(`/v1/projects/${project.id}/api_keys`, { token: adminA, body: { name: 'accounts', scopes: ['read'] } });
    expectRefused(await env.api.get('/v1/accounts', { token: key.body.key }), 403, 'forbidden');
  });

  // Last in the file's server: it moves the clock a week on, past the admin's token.
  it('an expired invitation (by the clock) cannot be accepted, and stays listed as invited', async () => {
    const expired = await invite(adminA, fresh());
    const expiredPage = await openLinkPage(expired.body.invitation_url);
    env.server.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    expect((await pressOnInvitation(expiredPage, 'accept', 'a long enough password')).status).toBe(400);
    expect((await openLinkPage(expired.body.invitation_url)).status).toBe(400);
    expect(await env.server.repos.identities.findByEmail(expired.body.email)).toBeNull();
    // Still listed as invited, until an admin removes it.
    expect((await env.server.repos.users.findById(expired.body.id))!.status).toBe('invited');
  });
});

describe('on two instances', () => {
  const two = useTwoInstances();

  it('20 accepts of one invitation spread over both make one membership', async () => {
    const api = await Api.connect(two.first.url);
    const tokens = new Tokens(two.first);
    const owner = await tokens.user('owner');
    const admin = await tokens.accessToken(owner, 'admin');
    const email = fresh();
    const res = await api.post('/v1/users', { token: admin, body: { email, name: 'Racer', role: 'viewer' } });
    expect(res.status).toBe(201);
    const opened = await openLinkPage(res.body.invitation_url);
    const results = await race(20, (i) => pressOnInvitation(opened, 'accept', 'racing on two instances', two.both[i % 2]!.url));
    expect(results.filter((r) => r.status === 303)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 303)) expect(r.status).toBe(400);
    expect(await two.second.repos.users.collection.countDocuments({ email, status: 'active' })).toBe(1);
    expect(await two.second.repos.identities.collection.countDocuments({ email })).toBe(1);
    expect(await two.second.repos.events.collection.countDocuments({ type: 'user.invitation_accepted', 'data.user_id': res.body.id })).toBe(1);
  });
});
