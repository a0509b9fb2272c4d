import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/**
 * The pending deliveries: one entry per delivery that still has an attempt to make, removed when it
 * succeeds or gives up. Kept small on purpose, because FerretDB reads a whole collection for any
 * filter other than `_id`, and every instance polls this one.
 */
export interface WebhookQueueEntry {
  /** The delivery id. */
  _id: string;
  webhook_id: string;
  /** When the next attempt is due. */
  due_at: Date;
  /**
   * Which claim of this entry is next: the lease for an attempt is `${_id}#${seq}`, and whoever makes
   * the attempt moves `seq` on, so a lease id is used for one attempt only.
   */
  seq: number;
  /** Retries stop this long (the retry window) after this time. */
  window_started_at: Date;
}

export class WebhookQueueRepository {
  readonly collection: Collection<WebhookQueueEntry>;
  constructor(db: Db) {
    this.collection = db.collection<WebhookQueueEntry>('webhook_queue');
  }

  async ensureIndexes(): Promise<void> {
    // Which endpoints have due work (endpointsDue), then each endpoint's oldest due entries (dueFor).
    await this.collection.createIndex({ due_at: 1 }, { name: 'due_at' });
    await this.collection.createIndex({ webhook_id: 1, due_at: 1 }, { name: 'webhook_due' });
    await this.collection.createIndex({ webhook_id: 1 }, { name: 'webhook_id' });
  }

  /** False when the delivery is already queued. */
  async insert(entry: WebhookQueueEntry): Promise<boolean> {
    return await claimOnce(this.collection, entry);
  }

  /** The endpoints that have at least one entry due by `now` (one id each, however long their backlog). */
  async endpointsDue(now: Date): Promise<string[]> {
    return (await this.collection.distinct('webhook_id', { due_at: { $lte: now } })).map(String);
  }

  /** One endpoint's entries due by `now`, oldest first. */
  async dueFor(webhookId: string, now: Date, limit: number): Promise<WebhookQueueEntry[]> {
    return await this.collection
      .find({ webhook_id: String(webhookId), due_at: { $lte: now } })
      .sort({ due_at: 1 })
      .limit(limit)
      .toArray();
  }

  async findById(id: string): Promise<WebhookQueueEntry | null> {
    return await this.collection.findOne({ _id: String(id) });
  }

  /** The lease holder schedules the next attempt under the next `seq`. */
  async reschedule(id: string, seq: number, dueAt: Date): Promise<void> {
    await this.collection.updateOne({ _id: String(id), seq }, { $set: { due_at: dueAt, seq: seq + 1 } });
  }

  /**
   * After a holder died mid-attempt its lease stays taken: moving to the next `seq` frees the entry.
   * Racers all write the same value, so the non-atomic update cannot do harm.
   */
  async skipClaim(id: string, seq: number): Promise<void> {
    await this.collection.updateOne({ _id: String(id), seq }, { $set: { seq: seq + 1 } });
  }

  async remove(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(id) });
  }

  async removeForWebhook(webhookId: string): Promise<number> {
    return await deleteInBatches(this.collection, { webhook_id: String(webhookId) }, { fixedFields: true });
  }
}
