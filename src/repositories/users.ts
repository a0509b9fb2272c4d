import type { Role } from '../domain/principal.ts';
import type { Collection, Db } from 'mongodb';
import { RecordCache } from '../lib/recordCache.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';


export interface UserDoc {
  _id: string;
  account_id: string;
  /** Stored lower-cased; unique within the account. */
  email: string;
  /**
   * The sign-in identity, unique across the service because people sign in by e-mail alone: the e-mail
   * itself, or, for an invitation to an e-mail that already signs in to another account,
   * `invited:<user id>`, which no sign-in matches (see docs/tenant-isolation.md). Set from `email` by
   * `insert` when absent.
   */
  email_key?: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

export class UserRepository {
  readonly collection: Collection<UserDoc>;
  readonly #cache: RecordCache<UserDoc>;
  /** `cacheMs`: how long `findByIdCached` may trust a user read earlier (0: never). */
  constructor(db: Db, options: { cacheMs?: number; now?: () => number } = {}) {
    this.collection = db.collection<UserDoc>('users');
    this.#cache = new RecordCache((id) => this.findById(id), { ttlMs: options.cacheMs ?? 0, ...(options.now ? { now: options.now } : {}) });
  }

  /** Runs a write to user `id`, then drops it from this process's cache (even if the write failed). */
  async #changing<T>(id: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.#cache.forget(String(id));
    }
  }

  async ensureIndexes(): Promise<void> {
    // The indexes there are (none when the collection does not exist yet): what is left to migrate.
    const existing = new Set((await this.collection.listIndexes().toArray().catch(() => [])).map((index) => index.name as string));
    // Users stored before invitations: their sign-in identity is their e-mail. Once the unique index on it
    // exists every user has one (inserts set it), so this whole-collection read runs at one start only.
    if (!existing.has('email_key_unique'))
      for (const doc of await this.collection.find({ email_key: { $exists: false } }, { projection: { email: 1 } }).toArray())
        await this.collection.updateOne({ _id: doc._id, email_key: { $exists: false } }, { $set: { email_key: doc.email } });
    // Never null or missing: insert() sets email_key (else the validated e-mail), nothing unsets it, and the loop above fills it in for older users first.
    await this.collection.createIndex({ email_key: 1 }, { unique: true, name: 'email_key_unique' });
    // Never null or missing: account_id and the validated, lower-cased e-mail are set on every insert (UserService), never unset.
    await this.collection.createIndex({ account_id: 1, email: 1 }, { unique: true, name: 'account_email_unique' });
    await this.collection.createIndex({ account_id: 1, _id: 1 }, { name: 'account_users' });
    // E-mails were unique across the service before; now per account (the sign-in identity stays unique).
    if (existing.has('email_unique')) await this.collection.dropIndex('email_unique');
    await this.collection.createIndex({ account_id: 1, role: 1 }, { name: 'account_role' });
  }

  async insert(doc: UserDoc): Promise<void> {
    await this.collection.insertOne({ ...doc, email_key: doc.email_key ?? doc.email });
  }

  /** Whether the account has a user (or invitation) with this e-mail. */
  async emailInAccount(accountId: string, email: string): Promise<boolean> {
    return (await this.collection.countDocuments({ account_id: String(accountId), email: String(email) }, { limit: 1 })) > 0;
  }

  async findById(id: string): Promise<UserDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  /**
   * For the token endpoint (the account of a refresh): the user from memory when read in the last
   * `cacheMs`. Changes and removals through this repository apply here at once, elsewhere within `cacheMs`.
   */
  async findByIdCached(id: string): Promise<UserDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.#cache.get(id);
  }

  /** The user who signs in with this e-mail (never an invitation: see `email_key`). */
  async findByEmail(email: string): Promise<UserDoc | null> {
    if (typeof email !== 'string') return null;
    return await this.collection.findOne({ email_key: email.trim().toLowerCase() });
  }

  async recordLogin(id: string, at = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { last_login_at: at } });
  }

  async findInAccount(accountId: string, id: string): Promise<UserDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId) });
  }

  /** Oldest first. */
  async page(accountId: string, page: PageRequest): Promise<PageResult<UserDoc>> {
    return await findPage(this.collection, { account_id: String(accountId) }, { _id: 1 }, page);
  }

  async countOwners(accountId: string): Promise<number> {
    return await this.collection.countDocuments({ account_id: String(accountId), role: 'owner' });
  }

  /**
   * Applies `changes` only while the user still has the role the caller read: every role change is a
   * compare-and-set, so nothing decided for an `admin` is applied to someone who became `owner`.
   */
  async updateIfRole(accountId: string, id: string, role: Role, changes: Partial<Pick<UserDoc, 'name' | 'role' | 'updated_at'>>): Promise<UserDoc | null> {
    return await this.#changing(id, () =>
      this.collection.findOneAndUpdate({ _id: String(id), account_id: String(accountId), role }, { $set: changes }, { returnDocument: 'after' }),
    );
  }

  async deleteIfRole(accountId: string, id: string, role: Role): Promise<UserDoc | null> {
    return await this.#changing(id, () => this.collection.findOneAndDelete({ _id: String(id), account_id: String(accountId), role }));
  }

  /** Sets the password only if the stored hash is still `expected` (null: no password yet). */
  async replacePasswordHash(id: string, expected: string | null, next: string, at = new Date()): Promise<boolean> {
    const { modifiedCount } = await this.#changing(id, () =>
      this.collection.updateOne({ _id: String(id), password_hash: expected === null ? null : String(expected) }, { $set: { password_hash: next, updated_at: at } }),
    );
    return modifiedCount === 1;
  }

  async setPasswordHash(id: string, next: string, at = new Date()): Promise<boolean> {
    const { modifiedCount } = await this.#changing(id, () => this.collection.updateOne({ _id: String(id) }, { $set: { password_hash: next, updated_at: at } }));
    return modifiedCount === 1;
  }
}
