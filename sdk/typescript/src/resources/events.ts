// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.events`: the operations tagged "Events".
 */
export class Events extends Resource {
  /**
   * List events (the audit log).
   *
   * Every change in the account, newest first: projects, deployments, configurations, API keys,
   * users, OAuth clients. Filter by `type` and `project_id`. Only for user and client credentials.
   *
   * `GET /v1/events`
   */
  list(params?: operations['listEvents']['parameters']['query'], options?: RequestOptions): Promise<Schemas['EventList']> {
    return this.call({ method: 'GET', path: '/v1/events', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/events`
   */
  listAll(params?: operations['listEvents']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Event'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/events', query: params }, options);
  }
}
