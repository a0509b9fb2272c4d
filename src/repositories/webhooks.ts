import type { Collection, Db } from 'mongodb';
import { RecordCache } from '../lib/recordCache.ts';
import type { SealedValue } from '../keys/secretBox.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A signing secret, sealed with the data key. The newest is first; a rotated-out one signs until `expires_at`. */
export interface WebhookSecret {
  sealed: SealedValue;
  created_at: Date;
  /** null for the current secret. */
  expires_at: Date | null;
}

/** A webhook endpoint of an account (docs/product.md §7). */
export interface WebhookDoc {
  /** whk_… */
  _id: string;
  account_id: string;
  url: string;
  /** Event types, or `*` for all. */
  events: string[];
  description: string | null;
  status: WebhookStatus;
  secrets: WebhookSecret[];
  created_at: Date;
  updated_at: Date;
}

export class WebhookRepository {
  readonly collection: Collection<WebhookDoc>;
  /** Per account: its enabled endpoints (often none), read when an event is recorded. */
  readonly #enabled: RecordCache<WebhookDoc[]>;
  /** `cacheMs`: how long `listEnabledCached` may trust an account's list read earlier (0: never). */
  constructor(db: Db, options: { cacheMs?: number } = {}) {
    this.collection = db.collection<WebhookDoc>('webhooks');
    this.#enabled = new RecordCache((accountId) => this.listEnabled(accountId), { ttlMs: options.cacheMs ?? 0 });
  }

  /** Runs a write, then drops every cached list of this process (writes are rare; even if it failed). */
  async #changing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.#enabled.forgetAll();
    }
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ account_id: 1, _id: 1 }, { name: 'account_webhooks' });
  }

  /** How many endpoints hold a signing secret sealed by `kid` (endpoints are few; no index). */
  async countSealedWith(kid: string): Promise<number> {
    return await this.collection.countDocuments({ 'secrets.sealed.kid': String(kid) });
  }

  /** Every data key id that seals a signing secret. */
  async sealingKeyIds(): Promise<string[]> {
    return (await this.collection.distinct('secrets.sealed.kid')).filter((kid): kid is string => typeof kid === 'string');
  }

  async insert(doc: WebhookDoc): Promise<void> {
    await this.#changing(() => this.collection.insertOne(doc));
  }

  async findById(id: string): Promise<WebhookDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  /** The status of each of these endpoints that exists (for the dispatcher's look at the queue). */
  async statuses(ids: string[]): Promise<Map<string, WebhookStatus>> {
    if (ids.length === 0) return new Map();
    const docs = await this.collection.find({ _id: { $in: ids.map(String) } }, { projection: { _id: 1, status: 1 } }).toArray();
    return new Map(docs.map((doc) => [doc._id, doc.status]));
  }

  async findInAccount(accountId: string, id: string): Promise<WebhookDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId) });
  }

  /** Oldest first. */
  async page(accountId: string, page: PageRequest): Promise<PageResult<WebhookDoc>> {
    return await findPage(this.collection, { account_id: String(accountId) }, { _id: 1 }, page);
  }

  /** The enabled endpoints of an account (a handful per account), for fanning an event out. */
  async listEnabled(accountId: string): Promise<WebhookDoc[]> {
    return await this.collection.find({ account_id: String(accountId), status: 'enabled' }).limit(1000).toArray();
  }

  /**
   * For fanning an event out on every write of the API: the list from memory when read in the last
   * `cacheMs`. Endpoints created, changed or removed through this repository apply here at once,
   * elsewhere within `cacheMs`. (The dispatcher reads each endpoint again before every attempt, so a
   * removed or disabled one is never called.)
   */
  async listEnabledCached(accountId: string): Promise<WebhookDoc[]> {
    return (await this.#enabled.get(String(accountId))) ?? [];
  }

  async update(accountId: string, id: string, set: Partial<Omit<WebhookDoc, '_id' | 'account_id' | 'created_at'>>): Promise<WebhookDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.#changing(() => this.collection.findOneAndUpdate({ _id: id, account_id: String(accountId) }, { $set: set }, { returnDocument: 'after' }));
  }

  /** Moves `enabled` → `disabled`; null when it was not enabled (someone else did it first, or it is gone). */
  async disable(id: string, at: Date): Promise<WebhookDoc | null> {
    return await this.#changing(() =>
      this.collection.findOneAndUpdate({ _id: String(id), status: 'enabled' }, { $set: { status: 'disabled', updated_at: at } }, { returnDocument: 'after' }),
    );
  }

  async delete(accountId: string, id: string): Promise<WebhookDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.#changing(() => this.collection.findOneAndDelete({ _id: id, account_id: String(accountId) }));
  }
}
