// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.accounts`: the operations tagged "Accounts".
 */
export class Accounts extends Resource {
  /**
   * List your accounts.
   *
   * Every account the signed-in person is a member of, with their role there, oldest first. The
   * credential keeps acting in its own account (`current`); another account needs a sign-in to it.
   * Only for user credentials.
   *
   * `GET /v1/accounts`
   */
  list(params?: operations['listAccounts']['parameters']['query'], options?: RequestOptions): Promise<Schemas['MembershipList']> {
    return this.call({ method: 'GET', path: '/v1/accounts', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/accounts`
   */
  listAll(params?: operations['listAccounts']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Membership'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/accounts', query: params }, options);
  }
}
