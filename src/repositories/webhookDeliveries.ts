import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One HTTP attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  at: Date;
  /** The receiver's status; null when there was no answer (timeout, refused connection, refused address). */
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/** One event sent to one endpoint: the log entry, also the state the dispatcher advances (docs/product.md §7). */
export interface WebhookDeliveryDoc {
  /** dlv_…: the `Slipway-Delivery` header, the same on every retry and redelivery. */
  _id: string;
  account_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The exact JSON body sent (the event object), so every attempt signs the same bytes. */
  payload: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  next_attempt_at: Date | null;
  succeeded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** How long a finished delivery stays in the log (and can be redelivered): 30 days, as events are kept for receivers to catch up. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export class WebhookDeliveryRepository {
  readonly collection: Collection<WebhookDeliveryDoc>;
  constructor(db: Db) {
    this.collection = db.collection<WebhookDeliveryDoc>('webhook_deliveries');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ webhook_id: 1, _id: -1 }, { name: 'webhook_deliveries' });
    // The list's filter and sort (newest first).
    await this.collection.createIndex({ account_id: 1, webhook_id: 1, _id: -1 }, { name: 'account_webhook_deliveries' });
    await this.collection.createIndex({ created_at: 1 }, { name: 'created_at' });
  }

  /** Finished deliveries older than the retention; pending ones stay until the dispatcher ends them. */
  async sweep(now = new Date()): Promise<number> {
    return await deleteInBatches(this.collection, { created_at: { $lte: new Date(now.getTime() - DELIVERY_RETENTION_MS) }, status: { $ne: 'pending' } });
  }

  async insert(doc: WebhookDeliveryDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findById(id: string): Promise<WebhookDeliveryDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  async findForWebhook(accountId: string, webhookId: string, id: string): Promise<WebhookDeliveryDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId), webhook_id: String(webhookId) });
  }

  /** Newest first. */
  async page(accountId: string, webhookId: string, page: PageRequest): Promise<PageResult<WebhookDeliveryDoc>> {
    return await findPage(this.collection, { account_id: String(accountId), webhook_id: String(webhookId) }, { _id: -1 }, page);
  }

  /** Only the holder of the delivery's lease writes here, so no update races another. */
  async recordAttempt(id: string, attempt: DeliveryAttempt | null, set: Pick<WebhookDeliveryDoc, 'status' | 'next_attempt_at'> & Partial<Pick<WebhookDeliveryDoc, 'succeeded_at'>>): Promise<void> {
    const update = { $set: { ...set, updated_at: new Date() }, ...(attempt ? { $push: { attempts: attempt } } : {}) };
    await this.collection.updateOne({ _id: String(id) }, update);
  }

  /** Whether any delivery to the endpoint succeeded since `since` (before disabling a failing endpoint). */
  async succeededSince(webhookId: string, since: Date): Promise<boolean> {
    return (await this.collection.findOne({ webhook_id: String(webhookId), succeeded_at: { $gte: since } }, { projection: { _id: 1 } })) !== null;
  }

  async deleteForWebhook(webhookId: string): Promise<number> {
    return await deleteInBatches(this.collection, { webhook_id: String(webhookId) }, { fixedFields: true });
  }
}
