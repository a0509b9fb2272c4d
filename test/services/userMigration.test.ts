import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createChanges } from '../../src/lib/changes.ts';
import { newId } from '../../src/lib/ids.ts';
import { createRepositories, migrate } from '../../src/repositories/index.ts';
import { hashPassword, verifyPassword } from '../../src/services/passwords.ts';
import { Api } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

/**
 * Users stored by the version before people and memberships were apart (one `users` document per
 * person: `email_key` the sign-in, `password_hash` on it, the unique index `email_key_unique`) move to
 * the new shape at start: a person (`identities`) and an active membership each; an invitation of the
 * old kind (`email_key: invited:<id>`) an `invited` membership. Two instances starting at once migrate
 * each user once; a second pass changes nothing; the migrated person then signs in over HTTP.
 */
const dbName = `t_${randomBytes(6).toString('hex')}`;
let client: MongoClient;
let server: TestServer | undefined;
const PASSWORD = 'the password of before';

type Legacy = Record<string, unknown> & { _id: string };

beforeAll(async () => {
  client = await MongoClient.connect(inject('mongodbUri'));
});
afterAll(async () => {
  await server?.stop();
  await client.db(dbName).dropDatabase().catch(() => undefined);
  await client.close();
});

/** Accounts and users exactly as the version before wrote them, with its indexes. */
async function writeLegacyData() {
  const db = client.db(dbName);
  const now = new Date();
  const [a, b] = [newId('account'), newId('account')];
  await db.collection<Legacy>('accounts').insertMany([
    { _id: a, name: 'Alpha', created_at: now, updated_at: now },
    { _id: b, name: 'Beta', created_at: now, updated_at: now },
  ]);
  const users = db.collection<Legacy>('users');
  await users.createIndex({ email_key: 1 }, { unique: true, name: 'email_key_unique' });
  await users.createIndex({ account_id: 1, email: 1 }, { unique: true, name: 'account_email_unique' });
  await users.createIndex({ account_id: 1, _id: 1 }, { name: 'account_users' });
  await users.createIndex({ account_id: 1, role: 1 }, { name: 'account_role' });
  const user = (fields: Partial<Legacy> & { _id: string; account_id: string; email: string }): Legacy => ({
    name: 'Someone',
    role: 'owner',
    email_key: fields.email,
    password_hash: null,
    created_at: now,
    updated_at: now,
    last_login_at: null,
    ...fields,
  });
  const owner = user({ _id: newId('user'), account_id: a, email: 'ada@example.com', password_hash: await hashPassword(PASSWORD) });
  const pendingSetup = user({ _id: newId('user'), account_id: a, email: 'setup@example.com', role: 'viewer' });
  const bOwner = user({ _id: newId('user'), account_id: b, email: 'bob@example.com', password_hash: await hashPassword('bob has his own password') });
  const invitedId = newId('user');
  // Beta's admin added Ada's address: before, an invitation that could never sign in.
  const oldInvitation = user({ _id: invitedId, account_id: b, email: 'ada@example.com', email_key: `invited:${invitedId}`, role: 'developer', password_hash: await hashPassword('set by beta') });
  await users.insertMany([owner, pendingSetup, bOwner, oldInvitation]);
  return { a, b, owner, pendingSetup, bOwner, oldInvitation };
}

describe('users stored before people and memberships were apart', () => {
  it('become a person and a membership each, once, when two instances start at once; a second pass changes nothing; they sign in', async () => {
    const legacy = await writeLegacyData();
    const db = client.db(dbName);
    // Two instances' start: each its own repositories on the one database, migrating at the same time.
    const starts = [0, 1].map(() => createRepositories(db, { changes: createChanges() }));
    await Promise.all(starts.map((repos) => migrate(db, repos, { once: true })));

    const identities = await db.collection('identities').find({}).sort({ email: 1 }).toArray();
    expect(identities.map((p) => p.email)).toEqual(['ada@example.com', 'bob@example.com', 'setup@example.com']);
    const ada = identities[0]!;
    expect(await verifyPassword(ada.password_hash as string, PASSWORD)).toBe(true);
    expect(identities[2]!.password_hash).toBeNull();

    const users = db.collection<Legacy>('users');
    const byId = async (id: string) => (await users.findOne({ _id: id }))!;
    expect(await byId(legacy.owner._id)).toMatchObject({ identity_id: ada._id, status: 'active', account_id: legacy.a, role: 'owner', email: 'ada@example.com' });
    expect(await byId(legacy.bOwner._id)).toMatchObject({ identity_id: identities[1]!._id, status: 'active' });
    expect(await byId(legacy.pendingSetup._id)).toMatchObject({ identity_id: identities[2]!._id, status: 'active' });
    // The old invitation: invited, nobody's yet; Ada's sign-in is untouched by Beta's password.
    expect(await byId(legacy.oldInvitation._id)).toMatchObject({ identity_id: null, status: 'invited', role: 'developer' });
    // Nothing of the old shape remains: no sign-in key, no password on a membership, no global index.
    expect(await users.countDocuments({ $or: [{ email_key: { $exists: true } }, { password_hash: { $exists: true } }] })).toBe(0);
    const indexes = (await users.indexes()).map((i) => i.name);
    expect(indexes).not.toContain('email_key_unique');
    expect(indexes).toContain('account_email_unique');
    expect(await db.collection('migrations').countDocuments({ _id: 'identities-split' as never })).toBe(1);

    // Again, as `slipway db migrate` (every pass): the same documents.
    const before = JSON.stringify(await users.find({}).sort({ _id: 1 }).toArray());
    await migrate(db, createRepositories(db, { changes: createChanges() }));
    expect(JSON.stringify(await users.find({}).sort({ _id: 1 }).toArray())).toBe(before);
    expect(await db.collection('identities').countDocuments({})).toBe(3);

    // The app on that database: Ada signs in with her password of before, as her Alpha membership.
    server = await startTestServer({ dbName });
    const tokens = new Tokens(server);
    const asAda = { id: legacy.owner._id, email: 'ada@example.com', password: PASSWORD, role: 'owner' as const, accountId: legacy.a };
    const token = await tokens.accessToken(asAda, 'read');
    const api = await Api.connect(server.url);
    const me = await api.get('/v1/users/me', { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: legacy.owner._id, account_id: legacy.a, status: 'active' });
    const accounts = await api.get('/v1/accounts', { token });
    expect(accounts.body.data).toEqual([{ account_id: legacy.a, name: 'Alpha', role: 'owner', user_id: legacy.owner._id, current: true }]);
    // Beta sees the old invitation as invited.
    const bob = await tokens.accessToken({ id: legacy.bOwner._id, email: 'bob@example.com', password: 'bob has his own password', role: 'owner', accountId: legacy.b }, 'read');
    const invited = await api.get(`/v1/users/${legacy.oldInvitation._id}`, { token: bob });
    expect(invited.body.status).toBe('invited');
  });
});
