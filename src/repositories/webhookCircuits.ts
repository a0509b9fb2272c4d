import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';

/**
 * The health of one webhook endpoint as the dispatcher sees it: how many attempts in a row failed and,
 * once that reaches the threshold, until when its deliveries wait (the circuit is open) before one
 * probe attempt is let through. No record: the endpoint is healthy (the usual case, so nothing is
 * written for endpoints that answer).
 *
 * Written by whichever instance finished an attempt, without atomic read-modify-write on FerretDB
 * 1.24: two failures finishing at the same moment may count as one, which only delays the circuit by
 * an attempt. Who probes is decided by the endpoint's slot leases, not here.
 */
export interface WebhookCircuitDoc {
  /** The webhook id. */
  _id: string;
  /** Consecutive failed attempts. */
  failures: number;
  /** Set once `failures` reaches the threshold: no attempt before this time, then one probe. */
  open_until: Date | null;
  updated_at: Date;
}

export class WebhookCircuitRepository {
  readonly collection: Collection<WebhookCircuitDoc>;
  constructor(db: Db) {
    this.collection = db.collection<WebhookCircuitDoc>('webhook_circuits');
  }

  /** Only `_id` lookups: nothing to declare. */
  async ensureIndexes(): Promise<void> {}

  /** The circuits of these endpoints (those without a record are closed). */
  async findMany(webhookIds: string[]): Promise<Map<string, WebhookCircuitDoc>> {
    if (webhookIds.length === 0) return new Map();
    const docs = await this.collection.find({ _id: { $in: webhookIds.map(String) } }).toArray();
    return new Map(docs.map((doc) => [doc._id, doc]));
  }

  async find(webhookId: string): Promise<WebhookCircuitDoc | null> {
    return await this.collection.findOne({ _id: String(webhookId) });
  }

  /** One more failure in a row; `openUntil(failures)` says until when the endpoint then waits (null: not yet). */
  async recordFailure(webhookId: string, now: Date, openUntil: (failures: number) => Date | null): Promise<WebhookCircuitDoc> {
    const id = String(webhookId);
    for (let round = 0; round < 2; round++) {
      const current = await this.find(id);
      const failures = (current?.failures ?? 0) + 1;
      const doc: WebhookCircuitDoc = { _id: id, failures, open_until: openUntil(failures), updated_at: now };
      if (current) {
        await this.collection.replaceOne({ _id: id }, doc);
        return doc;
      }
      if (await claimOnce(this.collection, doc)) return doc;
      // Another instance recorded a failure first: count on top of it.
    }
    throw new Error(`the circuit of ${id} changed under every attempt to record a failure`);
  }

  /** An attempt succeeded (or the endpoint was changed): the circuit closes. */
  async reset(webhookId: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(webhookId) });
  }
}
