// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.configurations`: the operations tagged "Configurations".
 */
export class Configurations extends Resource {
  /**
   * List configuration variables of a project.
   *
   * Ordered by environment, then key; filter by `environment`. `?reveal=true` needs the admin scope
   * (and, for a user, the admin or owner role); without it secret values are `null`.
   *
   * `GET /v1/projects/{project_id}/configurations`
   */
  list(projectId: string, params?: operations['listConfigurations']['parameters']['query'], options?: RequestOptions): Promise<Schemas['ConfigurationList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/configurations', pathParams: [projectId], query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/configurations`
   */
  listAll(projectId: string, params?: operations['listConfigurations']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Configuration'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/configurations', pathParams: [projectId], query: params }, options);
  }

  /**
   * Create a configuration variable.
   *
   * Adds `key` to `environment`. With `secret: true` the value is encrypted at rest and is never
   * returned again except through `?reveal=true` (admin). Archived projects refuse it.
   *
   * `POST /v1/projects/{project_id}/configurations` (safe to retry: sends an `Idempotency-Key`)
   */
  create(projectId: string, params: Schemas['CreateConfiguration'], options?: RequestOptions): Promise<Schemas['Configuration']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/configurations', pathParams: [projectId], body: params, idempotent: true }, options);
  }

  /**
   * Get a configuration variable.
   *
   * `?reveal=true` needs the admin scope (and, for a user, the admin or owner role); without it
   * secret values are `null`.
   *
   * `GET /v1/projects/{project_id}/configurations/{configuration_id}`
   */
  get(projectId: string, configurationId: string, params?: operations['getConfiguration']['parameters']['query'], options?: RequestOptions): Promise<Schemas['Configuration']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/configurations/{configuration_id}', pathParams: [projectId, configurationId], query: params }, options);
  }

  /**
   * Update a configuration variable.
   *
   * Changes `value` and/or makes the variable secret. A secret cannot be made non-secret
   * (`validation_failed` on `secret`): delete it and create it again. Archived projects refuse it.
   *
   * `PATCH /v1/projects/{project_id}/configurations/{configuration_id}`
   */
  update(projectId: string, configurationId: string, params: Schemas['UpdateConfiguration'], options?: RequestOptions): Promise<Schemas['Configuration']> {
    return this.call({ method: 'PATCH', path: '/v1/projects/{project_id}/configurations/{configuration_id}', pathParams: [projectId, configurationId], body: params }, options);
  }

  /**
   * Delete a configuration variable.
   *
   * Archived projects refuse it.
   *
   * `DELETE /v1/projects/{project_id}/configurations/{configuration_id}`
   */
  delete(projectId: string, configurationId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}/configurations/{configuration_id}', pathParams: [projectId, configurationId] }, options);
  }
}
