// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.projects`: the operations tagged "Projects".
 */
export class Projects extends Resource {
  /**
   * List projects.
   *
   * Newest first. An API key sees only its own project.
   *
   * `GET /v1/projects`
   */
  list(params?: operations['listProjects']['parameters']['query'], options?: RequestOptions): Promise<Schemas['ProjectList']> {
    return this.call({ method: 'GET', path: '/v1/projects', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects`
   */
  listAll(params?: operations['listProjects']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Project'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects', query: params }, options);
  }

  /**
   * Create a project.
   *
   * Starts `active`. Names are unique in the account ignoring case. An API key belongs to one
   * project and cannot create projects (`forbidden`). Only for user and client credentials.
   *
   * `POST /v1/projects` (safe to retry: sends an `Idempotency-Key`)
   */
  create(params: Schemas['CreateProject'], options?: RequestOptions): Promise<Schemas['Project']> {
    return this.call({ method: 'POST', path: '/v1/projects', body: params, idempotent: true }, options);
  }

  /**
   * Get a project.
   *
   * `GET /v1/projects/{project_id}`
   */
  get(projectId: string, options?: RequestOptions): Promise<Schemas['Project']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}', pathParams: [projectId] }, options);
  }

  /**
   * Update a project.
   *
   * Change `name`, `deploy_target` or `status`. Status moves: `active` ⇄ `paused`,
   * `active`/`paused` → `archived`, `archived` → `active`; any other move is `invalid_transition`.
   * An archived project accepts only `{"status": "active"}` (else `project_not_active`).
   *
   * `PATCH /v1/projects/{project_id}`
   */
  update(projectId: string, params: Schemas['UpdateProject'], options?: RequestOptions): Promise<Schemas['Project']> {
    return this.call({ method: 'PATCH', path: '/v1/projects/{project_id}', pathParams: [projectId], body: params }, options);
  }

  /**
   * Delete a project.
   *
   * Removes the project with its deployments and configurations, and revokes its API keys.
   *
   * `DELETE /v1/projects/{project_id}`
   */
  delete(projectId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}', pathParams: [projectId] }, options);
  }
}
