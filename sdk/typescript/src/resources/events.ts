import type { RequestOptions } from '../core.js';
import type { Event, ListEventsParams, Page, PageParams } from '../types.js';
import { Resource } from './base.js';

/** `client.events`: the account's audit log, newest first (read-only). */
export class Events extends Resource {
  /** One page; filter by `type` and `project_id`. */
  list(params?: ListEventsParams & PageParams, options?: RequestOptions): Promise<Page<Event>> {
    return this.listPage('/v1/events', params, options);
  }

  listAll(params?: ListEventsParams & PageParams, options?: RequestOptions): AsyncGenerator<Event, void, undefined> {
    return this.listEvery('/v1/events', params, options);
  }
}
