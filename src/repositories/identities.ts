import type { Collection, Db } from 'mongodb';

/**
 * A person's sign-in (docs/product.md §11): the e-mail they sign in with and their password. What they
 * may do lives in their memberships, the `users` of each account (`UserDoc.identity_id`), so one person
 * can belong to several accounts with one password. Lockout state is kept by e-mail (LoginService's
 * budgets), device cookies name the person's memberships or this id.
 */
export interface IdentityDoc {
  /** `idn_…`. */
  _id: string;
  /** Stored lower-cased; unique across the service: people sign in by e-mail alone. */
  email: string;
  /** Null until chosen (a person added with a setup link before invitations, who has not used it yet). */
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export class IdentityRepository {
  readonly collection: Collection<IdentityDoc>;
  constructor(db: Db) {
    this.collection = db.collection<IdentityDoc>('identities');
  }

  async ensureIndexes(): Promise<void> {
    // Never null or missing: every insert (UserService, the migration of older users) sets the validated, lower-cased e-mail, and nothing unsets it.
    await this.collection.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
  }

  async findById(id: string): Promise<IdentityDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  async findByEmail(email: string): Promise<IdentityDoc | null> {
    if (typeof email !== 'string') return null;
    return await this.collection.findOne({ email: email.trim().toLowerCase() });
  }

  /** Inserts; a taken e-mail is the unique index's refusal (callers read it through `writeUnique`). */
  async insert(doc: IdentityDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /** Sets the password only if the stored hash is still `expected`. */
  async replacePasswordHash(id: string, expected: string | null, next: string, at = new Date()): Promise<boolean> {
    const { modifiedCount } = await this.collection.updateOne({ _id: String(id), password_hash: expected === null ? null : String(expected) }, { $set: { password_hash: next, updated_at: at } });
    return modifiedCount === 1;
  }

  async setPasswordHash(id: string, next: string, at = new Date()): Promise<boolean> {
    const { modifiedCount } = await this.collection.updateOne({ _id: String(id) }, { $set: { password_hash: next, updated_at: at } });
    return modifiedCount === 1;
  }
}
