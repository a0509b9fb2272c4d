import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';

/**
 * Who makes a delivery attempt: the instance that inserts `${deliveryId}#${seq}` first. An insert of a
 * unique `_id` is atomic on FerretDB 1.24 as on MongoDB, so of several instances exactly one wins.
 */
export interface WebhookLeaseDoc {
  _id: string;
  expires_at: Date;
}

const KEEP_MS = 24 * 3600 * 1000;

export class WebhookLeaseRepository {
  readonly collection: Collection<WebhookLeaseDoc>;
  constructor(db: Db) {
    this.collection = db.collection<WebhookLeaseDoc>('webhook_leases');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /** True when this caller holds the lease now. */
  async tryClaim(id: string, ttlMs: number, now = new Date()): Promise<boolean> {
    try {
      await this.collection.insertOne({ _id: id, expires_at: new Date(now.getTime() + ttlMs) });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  async find(id: string): Promise<WebhookLeaseDoc | null> {
    return await this.collection.findOne({ _id: String(id) });
  }

  async release(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(id) });
  }

  /** Leases left by instances that died, a day after they ended. */
  async sweep(now = new Date()): Promise<number> {
    return (await this.collection.deleteMany({ expires_at: { $lte: new Date(now.getTime() - KEEP_MS) } })).deletedCount;
  }
}
