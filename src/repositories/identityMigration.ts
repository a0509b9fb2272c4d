import type { Db } from 'mongodb';
import { writeUnique } from '../db/claims.ts';
import { newId } from '../lib/ids.ts';
import type { IdentityRepository } from './identities.ts';
import { oneTimePass, type MigrationOptions } from './migrations.ts';
import type { LegacyUserFields, UserDoc, UserRepository } from './users.ts';

const SPLIT = 'identities-split';

/**
 * Users stored before people and memberships were apart (docs/product.md §11) become a person
 * (`identities`: the e-mail and password) and a membership (the `users` document: account, role,
 * `status`). A user who signed in with their e-mail (`email_key` equal to it) becomes an active member
 * of a new person; an invitation of the old kind (`email_key` `invited:<id>`, which could never sign in)
 * becomes an `invited` membership without a link (an admin removes it and invites again).
 *
 * Safe when two instances run it at once: the person is inserted under the unique e-mail (one insert
 * wins, `writeUnique`), and both then write the same person's id into the membership. Idempotent: only
 * users without `identity_id` are read. At start once (a marker), every pass under `slipway db migrate`.
 */
export async function migrateToIdentities(db: Db, users: UserRepository, identities: IdentityRepository, options: MigrationOptions = {}): Promise<number> {
  return await oneTimePass(db, SPLIT, options, async () => {
    let migrated = 0;
    const legacy = users.collection.find({ identity_id: { $exists: false } }) as unknown as AsyncIterable<UserDoc & LegacyUserFields>;
    for await (const user of legacy) {
      await splitUser(users, identities, user);
      migrated++;
    }
    return migrated;
  });
}

async function splitUser(users: UserRepository, identities: IdentityRepository, user: UserDoc & LegacyUserFields): Promise<void> {
  const unset = { $unset: { email_key: '' as const, password_hash: '' as const } };
  const signsIn = (user.email_key ?? user.email) === user.email;
  if (!signsIn) {
    await users.collection.updateOne({ _id: user._id, identity_id: { $exists: false } }, { $set: { identity_id: null, status: 'invited' }, ...unset });
    return;
  }
  const person = { _id: newId('identity'), email: user.email, password_hash: user.password_hash ?? null, created_at: user.created_at, updated_at: user.updated_at };
  // Taken: another instance made this person first; theirs is the one.
  await writeUnique(() => identities.insert(person), () => undefined);
  const holder = await identities.findByEmail(user.email);
  if (!holder) throw new Error(`migration: no person for ${user._id} after inserting one`);
  await users.collection.updateOne({ _id: user._id, identity_id: { $exists: false } }, { $set: { identity_id: holder._id, status: 'active' }, ...unset });
}
