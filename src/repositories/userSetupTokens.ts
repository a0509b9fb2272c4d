import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/** One-time links for a new user to choose a password. Only the SHA-256 of the token is stored. */
export interface UserSetupTokenDoc {
  /** SHA-256 (hex) of the token. */
  _id: string;
  user_id: string;
  account_id: string;
  expires_at: Date;
  created_at: Date;
}

export class UserSetupTokenRepository {
  readonly collection: Collection<UserSetupTokenDoc>;
  constructor(db: Db) {
    this.collection = db.collection<UserSetupTokenDoc>('user_setup_tokens');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ user_id: 1 }, { name: 'user_id' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  async insert(doc: UserSetupTokenDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /** Unexpired only. */
  async findValid(hash: string, now = new Date()): Promise<UserSetupTokenDoc | null> {
    if (typeof hash !== 'string') return null;
    return await this.collection.findOne({ _id: hash, expires_at: { $gt: now } });
  }

  async deleteByHash(hash: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(hash) });
  }

  async deleteForUser(userId: string): Promise<number> {
    return await deleteInBatches(this.collection, { user_id: String(userId) });
  }

  async sweep(now = new Date()): Promise<number> {
    const deletedCount = await deleteInBatches(this.collection, { expires_at: { $lte: now } });
    return deletedCount;
  }
}
