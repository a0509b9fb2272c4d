import type { Collection, Db } from 'mongodb';

/**
 * Grants that were revoked while JWT access tokens issued from them may still be unexpired. Kept for two
 * access-token lifetimes, then swept.
 */
interface RevokedGrantDoc {
  _id: string;
  revoked_at: Date;
  expires_at: Date;
}

const KEEP_SECONDS = 2 * 3600;

export class RevokedGrantRepository {
  readonly collection: Collection<RevokedGrantDoc>;
  constructor(db: Db) {
    this.collection = db.collection<RevokedGrantDoc>('revoked_grants');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ revoked_at: 1 }, { name: 'revoked_at' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  async add(grantId: string, at = new Date()): Promise<void> {
    await this.collection.updateOne(
      { _id: grantId },
      { $setOnInsert: { revoked_at: at, expires_at: new Date(at.getTime() + KEEP_SECONDS * 1000) } },
      { upsert: true },
    );
  }

  /** Grant ids revoked at or after `since`. */
  async revokedSince(since: Date): Promise<{ id: string; revoked_at: Date }[]> {
    const docs = await this.collection.find({ revoked_at: { $gte: since } }).project<RevokedGrantDoc>({ revoked_at: 1 }).toArray();
    return docs.map((d) => ({ id: d._id, revoked_at: d.revoked_at }));
  }

  async sweep(now = new Date()): Promise<number> {
    const { deletedCount } = await this.collection.deleteMany({ expires_at: { $lte: now } });
    return deletedCount;
  }
}
