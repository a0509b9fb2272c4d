import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/fixtures.ts';

/**
 * Users stored before invitations (e-mail unique across the service, no sign-in key) are migrated at
 * start: each gets `email_key` = its e-mail, and the old global unique index goes. Once the sign-in key's
 * unique index exists, later starts do not read the collection again for it.
 */
const database = useTestDatabase();

describe('users stored before sign-in keys', () => {
  it('get their e-mail as sign-in key at the next start, and the old unique index is dropped', async () => {
    const users = database.db.collection<{ _id: string } & Record<string, unknown>>('users');
    await users.drop().catch(() => undefined);
    await users.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    const now = new Date();
    await users.insertMany([
      { _id: 'usr_legacy0000000000000000001', account_id: 'acct_a', email: 'one@example.com', name: 'One', role: 'owner', created_at: now, updated_at: now },
      { _id: 'usr_legacy0000000000000000002', account_id: 'acct_b', email: 'two@example.com', name: 'Two', role: 'owner', created_at: now, updated_at: now },
    ]);
    await database.repos.users.ensureIndexes();
    expect((await users.find({}, { projection: { email: 1, email_key: 1 } }).sort({ _id: 1 }).toArray()).map((u) => [u.email, u.email_key])).toEqual([
      ['one@example.com', 'one@example.com'],
      ['two@example.com', 'two@example.com'],
    ]);
    const names = (await users.indexes()).map((i) => i.name);
    expect(names).toEqual(expect.arrayContaining(['email_key_unique', 'account_email_unique']));
    expect(names).not.toContain('email_unique');
    // Idempotent: a second start changes nothing and fails on nothing.
    await database.repos.users.ensureIndexes();
    expect(await users.countDocuments({ email_key: { $exists: true } })).toBe(2);
  });
});
