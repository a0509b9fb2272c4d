import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/**
 * The link of an invitation to an account (docs/product.md §11): the invited membership is the `users`
 * document (status `invited`); this is its one-time link, stored as the SHA-256 of the token only.
 */
export interface InvitationDoc {
  /** SHA-256 (hex) of the token. */
  _id: string;
  /** The invited membership (`usr_…`, status `invited`). */
  user_id: string;
  account_id: string;
  /** The address invited, lower-cased: only the person who signs in with it may accept. */
  email: string;
  /**
   * The first password the inviter chose (`POST /v1/users` with `password`), hashed: it becomes the
   * person's password if the address has no sign-in yet when they accept. Never applied to an existing
   * sign-in. Null without one.
   */
  password_hash: string | null;
  expires_at: Date;
  created_at: Date;
}

export class InvitationRepository {
  readonly collection: Collection<InvitationDoc>;
  constructor(db: Db) {
    this.collection = db.collection<InvitationDoc>('invitations');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ user_id: 1 }, { name: 'user_id' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  async insert(doc: InvitationDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /** Unexpired only. */
  async findValid(hash: string, now: Date): Promise<InvitationDoc | null> {
    if (typeof hash !== 'string') return null;
    return await this.collection.findOne({ _id: hash, expires_at: { $gt: now } });
  }

  async deleteForUser(userId: string): Promise<number> {
    return await deleteInBatches(this.collection, { user_id: String(userId) });
  }

  async sweep(now = new Date()): Promise<number> {
    return await deleteInBatches(this.collection, { expires_at: { $lte: now } });
  }
}
