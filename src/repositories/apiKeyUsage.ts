import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';

/**
 * When each API key was last used, apart from `api_keys`: the busy write of the authentication path
 * never touches the key document, so it can never write back a stale status over a revocation (on
 * FerretDB 1.24 an update rewrites the whole document).
 */
export interface ApiKeyUsageDoc {
  /** The key id. */
  _id: string;
  last_used_at: Date;
}

export class ApiKeyUsageRepository {
  readonly collection: Collection<ApiKeyUsageDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ApiKeyUsageDoc>('api_key_usage');
  }

  async ensureIndexes(): Promise<void> {
    // _id is the only lookup.
  }

  /**
   * Records a use unless one was recorded in the last minute: at most one write per key per minute
   * (per instance exactly; across instances on MongoDB too, where the conditional update is atomic).
   */
  async touch(keyId: string, at: Date): Promise<boolean> {
    const id = String(keyId);
    const { matchedCount } = await this.collection.updateOne(
      { _id: id, last_used_at: { $lt: new Date(at.getTime() - 60_000) } },
      { $set: { last_used_at: at } },
    );
    if (matchedCount === 1) return true;
    // The key's first use: recorded by whichever concurrent request claims the record.
    return await claimOnce(this.collection, { _id: id, last_used_at: at });
  }

  async lastUsed(keyIds: string[]): Promise<Map<string, Date>> {
    if (keyIds.length === 0) return new Map();
    const docs = await this.collection.find({ _id: { $in: keyIds.map(String) } }).toArray();
    return new Map(docs.map((d) => [d._id, d.last_used_at]));
  }
}
