// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.deployments`: the operations tagged "Deployments".
 */
export class Deployments extends Resource {
  /**
   * List deployments of a project.
   *
   * Newest first; filter by `environment`, `status`, `branch`.
   *
   * `GET /v1/projects/{project_id}/deployments`
   */
  list(projectId: string, params?: operations['listDeployments']['parameters']['query'], options?: RequestOptions): Promise<Schemas['DeploymentList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/deployments', pathParams: [projectId], query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/deployments`
   */
  listAll(projectId: string, params?: operations['listDeployments']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Deployment'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/deployments', pathParams: [projectId], query: params }, options);
  }

  /**
   * Create a deployment.
   *
   * Queues a deployment of `branch` (optionally a `commit_sha`) to `environment`. Paused and
   * archived projects refuse new deployments.
   *
   * `POST /v1/projects/{project_id}/deployments` (safe to retry: sends an `Idempotency-Key`)
   */
  create(projectId: string, params: Schemas['CreateDeployment'], options?: RequestOptions): Promise<Schemas['Deployment']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/deployments', pathParams: [projectId], body: params, idempotent: true }, options);
  }

  /**
   * Get a deployment.
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}`
   */
  get(projectId: string, deploymentId: string, options?: RequestOptions): Promise<Schemas['Deployment']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/deployments/{deployment_id}', pathParams: [projectId, deploymentId] }, options);
  }

  /**
   * Report deployment progress.
   *
   * How an external deployer reports progress: `queued` → `building` → `deploying` → `succeeded`,
   * or `failed`/`canceled` from any unfinished state. Other moves are `invalid_transition`.
   * Repeating the current status only updates `status_message`/`url`.
   *
   * `PATCH /v1/projects/{project_id}/deployments/{deployment_id}`
   */
  update(projectId: string, deploymentId: string, params: Schemas['UpdateDeployment'], options?: RequestOptions): Promise<Schemas['Deployment']> {
    return this.call({ method: 'PATCH', path: '/v1/projects/{project_id}/deployments/{deployment_id}', pathParams: [projectId, deploymentId], body: params }, options);
  }
}
