import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Db } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import type { AppError } from '../../src/errors.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { newId } from '../../src/lib/ids.ts';
import { createAdapterClass } from '../../src/repositories/oidc/index.ts';
import { systemPrincipal, type Principal, type Role } from '../../src/domain/principal.ts';
import { presentUser } from '../../src/presenters/users.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import { ChangePasswordBody, CreateUserBody, UpdateUserBody } from '../../src/schemas/users.ts';
import { verifyPassword } from '../../src/services/passwords.ts';
import type { UserService } from '../../src/services/users.ts';
import { dumpDatabase } from '../support/database.ts';
import { makeUser, TEST_PASSWORD } from '../support/factories.ts';
import { rejection, useTestServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

const server = useTestServer();
let db: Db;
let repos: TestServer['repos'];
let users: UserService;

beforeAll(() => {
  db = server.running.container.database.db;
  repos = server.repos;
  users = server.services.users;
});

/** A user acting for themselves, with their role (as a dashboard session or a user's token). */
const actingAs = (user: { _id: string; account_id: string; role: Role }): Principal => ({
  kind: 'user',
  id: user._id,
  accountId: user.account_id,
  scopes: new Set(['read', 'write', 'admin']),
  role: user.role,
  credential: 'session',
});

/** Input the schema refuses: the route (and the dashboard, the CLI) answer it before any service sees it. */
const refusedInput = (schema: Parameters<typeof parseInput>[0], value: unknown) => rejection(Promise.resolve().then(() => parseInput(schema, value)));

/** A fresh account with an owner, acting as that owner. */
async function account(): Promise<{ owner: Awaited<ReturnType<typeof makeUser>>; ctx: Principal }> {
  const owner = await makeUser(server, { role: 'owner' });
  return { owner, ctx: actingAs(owner) };
}

async function member(accountId: string, role: Role) {
  return await makeUser(server, { role, account_id: accountId });
}

describe('users: listing and reading', () => {
  it('pages the users of one account only', async () => {
    const { owner, ctx } = await account();
    for (const role of ['viewer', 'developer', 'admin'] as const) await member(ctx.accountId, role);
    await account();
    const first = await users.list(ctx, { page: 1, per_page: 3 });
    expect(first.total).toBe(4);
    expect(first.items.map((u) => u.role)).toEqual(['owner', 'viewer', 'developer']);
    expect((await users.list(ctx, { page: 2, per_page: 3 })).items).toHaveLength(1);
    expect((await users.get(ctx, owner._id)).email).toBe(owner.email);
    expect((await rejection(users.get({ ...ctx, accountId: newId('account') }, owner._id))).code).toBe('not_found');
    expect(presentUser(owner)).not.toHaveProperty('password_hash');
  });
});

describe('users: adding', () => {
  it('invites, with or without a first password; the link is stored only hashed; accepting makes the person', async () => {
    const { ctx } = await account();
    const withPassword = await users.create(ctx, parseInput(CreateUserBody, { email: `Dev-${randomBytes(3).toString('hex')}@Example.com `, name: 'Dev', role: 'developer', password: TEST_PASSWORD }));
    expect(withPassword.user).toMatchObject({ account_id: ctx.accountId, status: 'invited', identity_id: null });
    expect(withPassword.user.email).toMatch(/^dev-[0-9a-f]{6}@example\.com$/);
    const preset = await repos.invitations.collection.findOne({ user_id: withPassword.user._id });
    expect(await verifyPassword(preset!.password_hash!, TEST_PASSWORD)).toBe(true);

    const invited = await users.create(ctx, parseInput(CreateUserBody, { email: `new-${randomBytes(3).toString('hex')}@example.com`, name: 'New', role: 'viewer' }));
    const { token, expiresAt } = invited.invitation!;
    expect(token).toMatch(/^slwin_[A-Za-z0-9_-]{43}$/);
    expect(Math.abs(expiresAt.getTime() - server.clock.now() - 7 * 24 * 3600 * 1000)).toBeLessThan(5000);
    expect(await dumpDatabase(db)).not.toContain(token);

    const accepted = await server.services.invitations.accept(token, { password: 'a brand new passphrase', source: 'test' });
    expect(accepted).toMatchObject({ _id: invited.user._id, status: 'active' });
    const person = (await repos.identities.findById(accepted.identity_id!))!;
    expect(await verifyPassword(person.password_hash!, 'a brand new passphrase')).toBe(true);
    expect((await rejection(server.services.invitations.accept(token, { password: 'another passphrase!', source: 'test' }))).code).toBe('invalid_request');

    const events = await repos.events.page(ctx.accountId, { type: 'user.created' }, { page: 1, per_page: 10 });
    expect(events.items.map((e) => e.data.invited)).toEqual([true, true]);
    expect(JSON.stringify(events.items)).not.toContain(token);

    const dup = await rejection(users.create(ctx, { email: withPassword.user.email, name: 'Again', role: 'viewer' }));
    expect(dup.code).toBe('conflict');
    const sneaky = await refusedInput(CreateUserBody, { email: 'x@example.com', name: 'X', role: 'viewer', account_id: newId('account') });
    expect(sneaky.code).toBe('validation_failed');
  });

  it('a setup link (a password reset) works once even under concurrent use, expires, and is replaced by a newer one', async () => {
    const { ctx } = await account();
    const user = await member(ctx.accountId, 'viewer');
    const first = await users.issueSetupToken(ctx, user._id);
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => users.completeSetup(first.token, { password: `concurrent passphrase ${i}` })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);

    const again = await users.issueSetupToken(ctx, user._id);
    const newer = await users.issueSetupToken(ctx, user._id);
    expect((await rejection(users.completeSetup(again.token, { password: 'old link passphrase' }))).code).toBe('invalid_request');
    await repos.userSetupTokens.collection.updateMany({ user_id: user._id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect((await rejection(users.completeSetup(newer.token, { password: 'expired link passphrase' }))).code).toBe('invalid_request');
    expect((await rejection(users.completeSetup('slwsu_nope', { password: 'whatever passphrase' }))).code).toBe('invalid_request');
    // An invitation has no password to reset: its own link is the way in.
    const { user: invited } = await users.create(ctx, { email: `i-${randomBytes(3).toString('hex')}@example.com`, name: 'I', role: 'viewer' });
    expect((await rejection(users.issueSetupToken(ctx, invited._id))).code).toBe('conflict');
  });

  it('only an owner may add an owner', async () => {
    const { ctx } = await account();
    const admin = await member(ctx.accountId, 'admin');
    const asAdmin = actingAs(admin);
    expect((await rejection(users.create(asAdmin, { email: `o-${randomBytes(3).toString('hex')}@example.com`, name: 'O', role: 'owner' }))).code).toBe('forbidden');
    await users.create(asAdmin, { email: `d-${randomBytes(3).toString('hex')}@example.com`, name: 'D', role: 'developer' });
  });

  it('an API key manages no users, whatever its scopes (403)', async () => {
    const { owner, ctx } = await account();
    const asKey: Principal = { kind: 'api_key', id: newId('apiKey'), accountId: ctx.accountId, projectId: newId('project'), scopes: new Set(['read', 'write', 'admin']), credential: 'api_key' };
    const attempts = [
      users.list(asKey, { page: 1, per_page: 10 }),
      users.get(asKey, owner._id),
      users.create(asKey, { email: `k-${randomBytes(3).toString('hex')}@example.com`, name: 'K', role: 'viewer' }),
      users.update(asKey, owner._id, { name: 'Renamed' }),
      users.issueSetupToken(asKey, owner._id),
      users.delete(asKey, owner._id),
    ];
    for (const attempt of attempts) expect((await rejection(attempt)).code).toBe('forbidden');
    expect((await users.get(ctx, owner._id)).name).toBe(owner.name);
  });
});

describe('users: updating and the last owner', () => {
  it('changes name and role and records what changed', async () => {
    const { ctx } = await account();
    const dev = await member(ctx.accountId, 'developer');
    const renamed = await users.update(ctx, dev._id, parseInput(UpdateUserBody, { name: '  Renamed  ' }));
    expect(renamed.name).toBe('Renamed');
    const promoted = await users.update(ctx, dev._id, { role: 'admin' });
    expect(promoted.role).toBe('admin');
    expect(await users.update(ctx, dev._id, { role: 'admin' })).toMatchObject({ role: 'admin' });
    const events = await repos.events.page(ctx.accountId, { type: 'user.updated' }, { page: 1, per_page: 10 });
    expect(events.items.map((e) => e.data)).toEqual([
      { user_id: dev._id, changed: ['role'], role: { from: 'developer', to: 'admin' } },
      { user_id: dev._id, changed: ['name'] },
    ]);
    expect((await refusedInput(UpdateUserBody, { role: 'superuser' })).code).toBe('validation_failed');
    expect((await refusedInput(UpdateUserBody, { email: 'x@example.com' })).code).toBe('validation_failed');
    expect((await rejection(users.update({ ...ctx, accountId: newId('account') }, dev._id, { name: 'x' }))).code).toBe('not_found');
  });

  it('refuses to demote or remove the last owner (409), and only owners touch owners (403)', async () => {
    const { owner, ctx } = await account();
    expect((await rejection(users.update(ctx, owner._id, { role: 'admin' }))).status).toBe(409);
    expect((await rejection(users.delete(ctx, owner._id))).status).toBe(409);
    expect((await users.get(ctx, owner._id)).role).toBe('owner');
    // Only the operator deleting the whole account removes the last owner.
    expect((await rejection(users.deleteWithAccount(ctx, owner._id))).code).toBe('forbidden');

    const admin = await member(ctx.accountId, 'admin');
    const asAdmin = actingAs(admin);
    expect((await rejection(users.update(asAdmin, owner._id, { role: 'viewer' }))).code).toBe('forbidden');
    expect((await rejection(users.update(asAdmin, admin._id, { role: 'owner' }))).code).toBe('forbidden');
    expect((await rejection(users.delete(asAdmin, owner._id))).code).toBe('forbidden');
    // The CLI (no acting role) may.
    const second = await users.update(systemPrincipal(ctx.accountId), admin._id, { role: 'owner' });
    expect(second.role).toBe('owner');
    // With two owners, one may go.
    expect((await users.update(ctx, owner._id, { role: 'admin' })).role).toBe('admin');
    expect((await rejection(users.update(ctx, second._id, { role: 'developer' }))).status).toBe(409);
  });

  it('two owners demoting or removing each other at the same time: exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const { owner: a, ctx } = await account();
      const b = await member(ctx.accountId, 'owner');
      const asB = actingAs(b);
      const results =
        round === 1
          ? await Promise.allSettled([users.delete(ctx, b._id), users.delete(asB, a._id)])
          : await Promise.allSettled([users.update(ctx, b._id, { role: 'admin' }), users.update(asB, a._id, { role: 'viewer' })]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as AppError).status).toBe(409);
      expect(await repos.users.countOwners(ctx.accountId)).toBe(1);
    }
  });
});

describe('users: deleting revokes everything they could act with', () => {
  it('deletes their grants (found through consents and grant payloads), tokens, codes, sessions and consents', async () => {
    const { ctx } = await account();
    const leaving = await member(ctx.accountId, 'developer');
    const staying = await member(ctx.accountId, 'developer');
    const Adapter = createAdapterClass(db, repos.oauthClients);
    const put = (model: string, id: string, payload: Record<string, unknown>) => new Adapter(model).upsert(id, { ...payload, kind: model, jti: id }, 3600);

    const artifacts = async (userId: string, clientId: string, remembered: boolean) => {
      const grantId = `g_${randomBytes(8).toString('hex')}`;
      await put('Grant', grantId, { accountId: userId, clientId });
      await put('RefreshToken', `rt_${grantId}`, { accountId: userId, clientId, grantId });
      await put('AuthorizationCode', `ac_${grantId}`, { accountId: userId, clientId, grantId });
      if (remembered) await repos.consents.remember(userId, clientId, grantId);
      return grantId;
    };
    const consented = await artifacts(leaving._id, 'cli_one', true);
    const unlisted = await artifacts(leaving._id, 'cli_two', false);
    const other = await artifacts(staying._id, 'cli_one', true);
    await put('Session', `s_${leaving._id}`, { accountId: leaving._id, uid: randomBytes(4).toString('hex') });
    await put('Session', `s_${staying._id}`, { accountId: staying._id, uid: randomBytes(4).toString('hex') });

    const { revokedGrants } = await users.delete(ctx, leaving._id);
    expect(revokedGrants).toBe(2);
    expect(await repos.users.findById(leaving._id)).toBeNull();

    // Artifacts are stored under the SHA-256 of their id (src/repositories/oidc/).
    const ids = async (collection: string) => (await db.collection(collection).find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id));
    for (const grantId of [consented, unlisted]) {
      expect(await ids('oidc_grant')).not.toContain(sha256Hex(grantId));
      expect(await ids('oidc_refresh_token')).not.toContain(sha256Hex(`rt_${grantId}`));
      expect(await ids('oidc_authorization_code')).not.toContain(sha256Hex(`ac_${grantId}`));
      expect(await repos.revokedGrants.collection.findOne({ _id: grantId })).not.toBeNull();
    }
    expect(await ids('oidc_grant')).toContain(sha256Hex(other));
    expect(await ids('oidc_refresh_token')).toContain(sha256Hex(`rt_${other}`));
    expect(await repos.revokedGrants.collection.findOne({ _id: other })).toBeNull();
    expect(await ids('oidc_session')).toEqual(expect.arrayContaining([sha256Hex(`s_${staying._id}`)]));
    expect(await ids('oidc_session')).not.toContain(sha256Hex(`s_${leaving._id}`));
    expect(await repos.consents.grantIdsForUser(leaving._id)).toEqual([]);
    expect(await repos.consents.grantIdsForUser(staying._id)).toEqual([other]);

    const [event] = (await repos.events.page(ctx.accountId, { type: 'user.deleted' }, { page: 1, per_page: 1 })).items;
    expect(event!.data).toMatchObject({ user_id: leaving._id, revoked_grants: 2 });
  });

  it('end to end: a deleted user\'s refresh token is refused and their access token\'s grant is revoked', async () => {
    const tokens = new Tokens(server);
    const owner = await tokens.user('owner');
    const dev = await tokens.user('developer', owner.accountId);
    const issued = await tokens.forUser(dev, 'read write', { withRefresh: true });
    expect(issued.refresh_token).toBeTruthy();
    const gid = decodeJwt(issued.access_token).gid as string;
    expect(gid).toBeTruthy();

    await users.delete(actingAs({ _id: owner.id, account_id: owner.accountId, role: 'owner' }), dev.id);
    expect(await repos.revokedGrants.collection.findOne({ _id: gid })).not.toBeNull();
    await expect(tokenRequest(server.issuer, { clientId: issued.clientId }, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! })).rejects.toThrow(/invalid_grant/);
  });
});

describe('users: own password', () => {
  it('needs the current password, refuses reuse, and stores the new one hashed', async () => {
    const { owner, ctx } = await account();
    const wrong = await rejection(users.changeOwnPassword(ctx, { current_password: 'not my password', new_password: 'a new long passphrase' }));
    expect(wrong.code).toBe('validation_failed');
    expect(wrong.details).toEqual([{ field: 'current_password', message: 'is not correct' }]);
    const same = await rejection(users.changeOwnPassword(ctx, { current_password: TEST_PASSWORD, new_password: TEST_PASSWORD }));
    expect(same.details![0]!.field).toBe('new_password');
    expect((await refusedInput(ChangePasswordBody, { current_password: TEST_PASSWORD, new_password: 'short' })).code).toBe('validation_failed');

    await users.changeOwnPassword(ctx, parseInput(ChangePasswordBody, { current_password: TEST_PASSWORD, new_password: 'a new long passphrase' }));
    const stored = (await repos.identities.findById(owner.identity_id!))!.password_hash!;
    expect(await verifyPassword(stored, 'a new long passphrase')).toBe(true);
    expect(await verifyPassword(stored, TEST_PASSWORD)).toBe(false);
    const dump = await dumpDatabase(db);
    expect(dump).not.toContain('a new long passphrase');
    expect((await repos.events.page(owner.account_id, { type: 'user.password_changed' }, { page: 1, per_page: 5 })).total).toBe(1);
  });
});
