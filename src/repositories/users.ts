import type { Collection, Db } from 'mongodb';

export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export interface UserDoc {
  _id: string;
  account_id: string;
  /** Stored lower-cased; unique across the service because people sign in by email alone. */
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
  last_login_at: Date | null;
}

export class UserRepository {
  readonly collection: Collection<UserDoc>;
  constructor(db: Db) {
    this.collection = db.collection<UserDoc>('users');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    await this.collection.createIndex({ account_id: 1, _id: 1 }, { name: 'account_users' });
  }

  async insert(doc: UserDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findById(id: string): Promise<UserDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  async findByEmail(email: string): Promise<UserDoc | null> {
    if (typeof email !== 'string') return null;
    return await this.collection.findOne({ email: email.trim().toLowerCase() });
  }

  async recordLogin(id: string, at = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { last_login_at: at } });
  }
}
