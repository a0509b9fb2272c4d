import type { Collection, Db, Filter } from 'mongodb';
import type { Actor } from '../domain/principal.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

/** Who did something: a user, an API key, an OAuth client (client_credentials), or the admin CLI. */

/** One entry of the audit log (docs/product.md §7). Immutable once written. */
export interface EventDoc {
  /** evt_…, time-sortable, so `_id` order is creation order. */
  _id: string;
  account_id: string;
  type: string;
  actor: Actor;
  project_id: string | null;
  /** What changed; never secret values, never dotted or `$`-led field names. */
  data: Record<string, unknown>;
  created_at: Date;
}

export interface EventFilter {
  type?: string;
  project_id?: string;
  /** Events about one deployment (`data.deployment_id`): its history. Use with `project_id`. */
  deployment_id?: string;
}

export class EventRepository {
  readonly collection: Collection<EventDoc>;
  constructor(db: Db) {
    this.collection = db.collection<EventDoc>('events');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ account_id: 1, _id: -1 }, { name: 'account_events' });
    await this.collection.createIndex({ account_id: 1, type: 1, _id: -1 }, { name: 'account_events_by_type' });
    await this.collection.createIndex({ account_id: 1, project_id: 1, _id: -1 }, { name: 'account_events_by_project' });
  }

  async insert(doc: EventDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /** Newest first. */
  async page(accountId: string, filter: EventFilter, page: PageRequest): Promise<PageResult<EventDoc>> {
    const query: Filter<EventDoc> = { account_id: String(accountId) };
    if (filter.type !== undefined) query.type = String(filter.type);
    if (filter.project_id !== undefined) query.project_id = String(filter.project_id);
    if (filter.deployment_id !== undefined) query['data.deployment_id'] = String(filter.deployment_id);
    return await findPage(this.collection, query, { _id: -1 }, page);
  }
}
