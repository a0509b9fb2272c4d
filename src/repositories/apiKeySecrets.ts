import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/**
 * The secrets of API keys, by SHA-256. One key has one current secret and, for a rotation's grace
 * period, the previous one. A collection of its own rather than an array in `api_keys`: FerretDB 1.24
 * accepts a unique index on an array field but does not enforce it, and scans for array lookups;
 * here the hash is `_id`, unique and indexed on every server.
 */
export interface ApiKeySecretDoc {
  /** SHA-256 (hex) of the full key. */
  _id: string;
  key_id: string;
  /** End of a rotation's grace period; null while current. */
  expires_at: Date | null;
  created_at: Date;
}

export class ApiKeySecretRepository {
  readonly collection: Collection<ApiKeySecretDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ApiKeySecretDoc>('api_key_secrets');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ key_id: 1 }, { name: 'key_id' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  async insert(doc: ApiKeySecretDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findByHash(hash: string): Promise<ApiKeySecretDoc | null> {
    if (typeof hash !== 'string') return null;
    return await this.collection.findOne({ _id: hash });
  }

  async deleteByHash(hash: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(hash) });
  }

  /**
   * Every secret of the key but `keep` stops working at `until` (now when null): deleted, or given an
   * expiry that never extends an earlier one.
   */
  async retireOthers(keyId: string, keep: string, until: Date | null): Promise<void> {
    if (!until) {
      await deleteInBatches(this.collection, { key_id: String(keyId), _id: { $ne: String(keep) } });
      return;
    }
    await this.collection.updateMany(
      { key_id: String(keyId), _id: { $ne: String(keep) }, $or: [{ expires_at: null }, { expires_at: { $gt: until } }] },
      { $set: { expires_at: until } },
    );
  }

  async deleteForKeys(keyIds: string[]): Promise<number> {
    if (keyIds.length === 0) return 0;
    const deletedCount = await deleteInBatches(this.collection, { key_id: { $in: keyIds.map(String) } });
    return deletedCount;
  }

  async sweep(now = new Date()): Promise<number> {
    const deletedCount = await deleteInBatches(this.collection, { expires_at: { $lte: now } });
    return deletedCount;
  }
}
