// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.environments`: the operations tagged "Environments".
 */
export class Environments extends Resource {
  /**
   * List environments of a project.
   *
   * Ordered by name. Environments that deployments went to before environments existed appear too,
   * without rules.
   *
   * `GET /v1/projects/{project_id}/environments`
   */
  list(projectId: string, params?: operations['listEnvironments']['parameters']['query'], options?: RequestOptions): Promise<Schemas['EnvironmentList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/environments', pathParams: [projectId], query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/environments`
   */
  listAll(projectId: string, params?: operations['listEnvironments']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Environment'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/environments', pathParams: [projectId], query: params }, options);
  }

  /**
   * Create an environment.
   *
   * With its rules: protection (approvals, reviewers, wait timer, branch patterns), `serial`,
   * `cancel_superseded`, freeze windows. A name the project already has → `conflict`. Only for user
   * and client credentials.
   *
   * `POST /v1/projects/{project_id}/environments` (safe to retry: sends an `Idempotency-Key`)
   */
  create(projectId: string, params: Schemas['CreateEnvironment'], options?: RequestOptions): Promise<Schemas['Environment']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/environments', pathParams: [projectId], body: params, idempotent: true }, options);
  }

  /**
   * Get an environment.
   *
   * `GET /v1/projects/{project_id}/environments/{name}`
   */
  get(projectId: string, name: string, options?: RequestOptions): Promise<Schemas['Environment']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/environments/{name}', pathParams: [projectId, name] }, options);
  }

  /**
   * Change an environment’s rules.
   *
   * Fields sent replace the stored ones; within `protection`, only the fields sent change.
   * Deployments already waiting keep the approvals and wait timer they were created under. Only for
   * user and client credentials.
   *
   * `PATCH /v1/projects/{project_id}/environments/{name}`
   */
  update(projectId: string, name: string, params: Schemas['UpdateEnvironment'], options?: RequestOptions): Promise<Schemas['Environment']> {
    return this.call({ method: 'PATCH', path: '/v1/projects/{project_id}/environments/{name}', pathParams: [projectId, name], body: params }, options);
  }

  /**
   * Delete an environment.
   *
   * Its rules go; its deployments stay. A new deployment to the name makes it again, without rules.
   * Only for user and client credentials.
   *
   * `DELETE /v1/projects/{project_id}/environments/{name}`
   */
  delete(projectId: string, name: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}/environments/{name}', pathParams: [projectId, name] }, options);
  }

  /**
   * Lock an environment.
   *
   * A locked environment refuses new deployments (`environment_locked`) until it is unlocked.
   * Locking again replaces the reason.
   *
   * `POST /v1/projects/{project_id}/environments/{name}/lock`
   */
  lock(projectId: string, name: string, params: Schemas['LockEnvironment'], options?: RequestOptions): Promise<Schemas['Environment']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/environments/{name}/lock', pathParams: [projectId, name], body: params }, options);
  }

  /**
   * Unlock an environment.
   *
   * `DELETE /v1/projects/{project_id}/environments/{name}/lock`
   */
  unlock(projectId: string, name: string, options?: RequestOptions): Promise<Schemas['Environment']> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}/environments/{name}/lock', pathParams: [projectId, name] }, options);
  }

  /**
   * Roll an environment back.
   *
   * Redeploys the deployment that succeeded before the current one (or `deployment_id`, which must
   * have succeeded in this environment) as a new deployment of kind `rollback`, through the
   * environment’s rules like any deployment.
   *
   * `POST /v1/projects/{project_id}/environments/{name}/rollback` (safe to retry: sends an
   * `Idempotency-Key`)
   */
  rollback(projectId: string, name: string, params: Schemas['Rollback'] = {}, options?: RequestOptions): Promise<Schemas['Deployment']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/environments/{name}/rollback', pathParams: [projectId, name], body: params, idempotent: true }, options);
  }
}
