import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/**
 * Who makes a delivery attempt: the instance that inserts `${deliveryId}#${seq}` first. An insert of a
 * unique `_id` is atomic on FerretDB 1.24 as on MongoDB, so of several instances exactly one wins.
 * The same kind of lease bounds the attempts in flight to one endpoint: `${webhookId}#slot${n}`, one
 * per attempt allowed at once (see WebhookDispatcher).
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

  /**
   * Takes over a lease whose holder died (its `expires_at` passed). Of all who found it ended, one
   * wins: the one that inserts the ticket for that very lease (`${id}~<its end>`, a unique insert, as
   * a delete filtered on the old value is not atomic on FerretDB 1.24). The winner removes the ended
   * lease and claims it anew, which it may still lose to a plain claim made in between: one holder
   * either way.
   */
  async takeOver(id: string, expired: WebhookLeaseDoc, ttlMs: number, now = new Date()): Promise<boolean> {
    if (expired.expires_at > now) return false;
    if (!(await this.tryClaim(`${id}~${expired.expires_at.getTime()}`, ttlMs, now))) return false;
    await this.collection.deleteOne({ _id: String(id), expires_at: expired.expires_at });
    return await this.tryClaim(id, ttlMs, now);
  }

  async find(id: string): Promise<WebhookLeaseDoc | null> {
    return await this.collection.findOne({ _id: String(id) });
  }

  /**
   * Ends a lease. With `expiresAt` (the end it was claimed with), only that very lease: a holder that
   * outlived it (a stalled process) does not end the lease of whoever took over since.
   */
  async release(id: string, expiresAt?: Date): Promise<void> {
    await this.collection.deleteOne({ _id: String(id), ...(expiresAt ? { expires_at: expiresAt } : {}) });
  }

  /** Leases left by instances that died, a day after they ended. */
  async sweep(now = new Date()): Promise<number> {
    return await deleteInBatches(this.collection, { expires_at: { $lte: new Date(now.getTime() - KEEP_MS) } });
  }
}
