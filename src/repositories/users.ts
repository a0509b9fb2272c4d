import type { Role } from '../domain/principal.ts';
import type { Collection, Db } from 'mongodb';
import { RecordCache } from '../lib/recordCache.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';


/** `invited`: added to the account, not yet accepted (docs/product.md §11); `active`: a member who signs in. */
export type MembershipStatus = 'invited' | 'active';

/**
 * A member of one account (`usr_…`, the /v1 user): the account, the role there and the status. Who
 * signs in is the person, `identity_id` (src/repositories/identities.ts): one person may be a member of
 * several accounts, one document in each, and every credential names one of them, so it acts in one
 * account only.
 */
export interface UserDoc {
  _id: string;
  account_id: string;
  /** Stored lower-cased; unique within the account. The same as the person's sign-in e-mail once accepted. */
  email: string;
  /** The person (`idn_…`); null while `invited`. */
  identity_id: string | null;
  status: MembershipStatus;
  name: string;
  role: Role;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

/** Fields of a user stored before people and memberships were apart (read by the migration only). */
export interface LegacyUserFields {
  email_key?: string;
  password_hash?: string | null;
}

/** The members that count for the owner rules: an invitation is nobody's access yet. */
const MEMBERS = { status: { $ne: 'invited' as const } };

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
    // The indexes there are (none when the collection does not exist yet).
    const existing = new Set((await this.collection.listIndexes().toArray().catch(() => [])).map((index) => index.name as string));
    // Never null or missing: account_id and the validated, lower-cased e-mail are set on every insert (UserService, the migration keeps them), never unset.
    await this.collection.createIndex({ account_id: 1, email: 1 }, { unique: true, name: 'account_email_unique' });
    await this.collection.createIndex({ account_id: 1, _id: 1 }, { name: 'account_users' });
    // A person's memberships (sign-in, GET /v1/accounts, a password change).
    await this.collection.createIndex({ identity_id: 1, _id: 1 }, { name: 'identity_memberships' });
    // E-mails were unique across the service before; now per account. The sign-in identity lived here
    // as `email_key` until people got their own collection: one person's memberships share an e-mail.
    // Another instance starting at the same time may have dropped it first.
    for (const old of ['email_unique', 'email_key_unique']) if (existing.has(old)) await this.collection.dropIndex(old).catch(() => undefined);
    await this.collection.createIndex({ account_id: 1, role: 1 }, { name: 'account_role' });
  }

  async insert(doc: UserDoc): Promise<void> {
    await this.collection.insertOne(doc);
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

  /** A person's active memberships, oldest first. */
  async activeForIdentity(identityId: string): Promise<UserDoc[]> {
    if (typeof identityId !== 'string') return [];
    return await this.collection.find({ identity_id: identityId, status: 'active' }).sort({ _id: 1 }).toArray();
  }

  /** A page of a person's active memberships, oldest first. */
  async pageForIdentity(identityId: string, page: PageRequest): Promise<PageResult<UserDoc>> {
    return await findPage(this.collection, { identity_id: String(identityId), status: 'active' }, { _id: 1 }, page);
  }

  /** An invited membership becomes the person's (`identity_id`) and active. Run by the one holder of the invitation's claim. */
  async activate(id: string, identityId: string, at: Date): Promise<UserDoc | null> {
    return await this.#changing(id, () =>
      this.collection.findOneAndUpdate({ _id: String(id), status: 'invited' }, { $set: { status: 'active', identity_id: identityId, updated_at: at } }, { returnDocument: 'after' }),
    );
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
    return await this.collection.countDocuments({ account_id: String(accountId), role: 'owner', ...MEMBERS });
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

  /** Removes a membership that is still an invitation (declined). */
  async deleteInvited(id: string): Promise<UserDoc | null> {
    return await this.#changing(id, () => this.collection.findOneAndDelete({ _id: String(id), status: 'invited' }));
  }

  async deleteIfRole(accountId: string, id: string, role: Role): Promise<UserDoc | null> {
    return await this.#changing(id, () => this.collection.findOneAndDelete({ _id: String(id), account_id: String(accountId), role }));
  }
}
