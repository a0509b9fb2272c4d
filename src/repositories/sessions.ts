import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/** Dashboard sessions. `_id` is the SHA-256 of the opaque token; the token itself is never stored. */
/** A session ends 12 h after its last use, and 7 days after it began whatever its use. */
export const SESSION_IDLE_MS = 12 * 3600 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600 * 1000;

export interface SessionDoc {
  _id: string;
  user_id: string;
  account_id: string;
  /** Synchronizer token for unsafe requests authenticated by the cookie. */
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  /** Absolute end (created + 7 days). Idle end is last_seen_at + 12 hours. */
  expires_at: Date;
}

export class SessionRepository {
  readonly collection: Collection<SessionDoc>;
  constructor(db: Db) {
    this.collection = db.collection<SessionDoc>('sessions');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ user_id: 1 }, { name: 'user_sessions' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
    await this.collection.createIndex({ last_seen_at: 1 }, { name: 'last_seen_at' });
  }

  async insert(doc: SessionDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findByHash(hash: string): Promise<SessionDoc | null> {
    if (typeof hash !== 'string') return null;
    return await this.collection.findOne({ _id: hash });
  }

  /** Coarse idle tracking: at most one write per session per minute. */
  async touch(hash: string, now = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: hash, last_seen_at: { $lt: new Date(now.getTime() - 60_000) } }, { $set: { last_seen_at: now } });
  }

  async delete(hash: string): Promise<void> {
    await this.collection.deleteOne({ _id: hash });
  }

  async deleteForUser(userId: string): Promise<number> {
    return await deleteInBatches(this.collection, { user_id: userId });
  }

  /** Every session of a user but those whose id starts with `keepPrefix` (the session making a change). */
  async deleteForUserExcept(userId: string, keepPrefix: string): Promise<number> {
    const ids = (await this.collection.find({ user_id: String(userId) }, { projection: { _id: 1 } }).toArray()).map((d) => d._id).filter((id) => !id.startsWith(keepPrefix));
    if (ids.length === 0) return 0;
    return await deleteInBatches(this.collection, { user_id: String(userId), _id: { $in: ids } });
  }

  async sweep(now: Date): Promise<number> {
    const deletedCount = await deleteInBatches(this.collection, {
      $or: [{ expires_at: { $lte: now } }, { last_seen_at: { $lte: new Date(now.getTime() - SESSION_IDLE_MS) } }],
    });
    return deletedCount;
  }
}
