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
   * Newest first; filter by `environment`, `status`, `branch`. With `Accept: text/event-stream`:
   * Server-Sent Events of the project's deployments as they change (filters do not apply): `event:
   * deployment` with `id: <updated_at in ms>` and the deployment as `data`, from now on, or after
   * `Last-Event-ID` when sent. A comment line (`: keep-alive`) every 15 s of silence; the same
   * limit of 20 streams per credential as the log streams, and the stream closes once the
   * credential is revoked or expires.
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
   * archived projects refuse new deployments. The environment is made, without rules, if the
   * project has none of that name; its rules apply: branch patterns (`branch_not_allowed`), a lock
   * (`environment_locked`), freeze windows (`environment_frozen`, unless `override_freeze` with a
   * `reason` and the admin scope), and with approvals or a wait timer the deployment starts
   * `waiting`.
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

  /**
   * Redeploy or promote a deployment.
   *
   * A new deployment of the same branch and commit: to its own environment (kind `redeploy`) or to
   * `environment` (kind `promote`), through the target environment’s rules like any deployment.
   *
   * `POST /v1/projects/{project_id}/deployments/{deployment_id}/redeploy` (safe to retry: sends an
   * `Idempotency-Key`)
   */
  redeploy(projectId: string, deploymentId: string, params: Schemas['Redeploy'] = {}, options?: RequestOptions): Promise<Schemas['Deployment']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/deployments/{deployment_id}/redeploy', pathParams: [projectId, deploymentId], body: params, idempotent: true }, options);
  }

  /**
   * List the reviews of a deployment.
   *
   * Oldest first.
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}/reviews`
   */
  listReviews(projectId: string, deploymentId: string, params?: operations['listDeploymentReviews']['parameters']['query'], options?: RequestOptions): Promise<Schemas['ReviewList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/deployments/{deployment_id}/reviews', pathParams: [projectId, deploymentId], query: params }, options);
  }

  /**
   * Every item of `listReviews`, page after page: the next page is requested only when the loop
   * reaches it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}/reviews`
   */
  listAllReviews(projectId: string, deploymentId: string, params?: operations['listDeploymentReviews']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Review'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/deployments/{deployment_id}/reviews', pathParams: [projectId, deploymentId], query: params }, options);
  }

  /**
   * Approve or reject a waiting deployment.
   *
   * By a reviewer of the environment (its `reviewers`; without any, an admin or owner), once each
   * (`conflict` the second time). Under `prevent_self_review` the creator cannot approve. One
   * reject ends the deployment as `rejected`; when the approvals are met and the wait timer has run
   * out, the service queues it by itself within 5 seconds. Only for user credentials.
   *
   * `POST /v1/projects/{project_id}/deployments/{deployment_id}/reviews`
   */
  review(projectId: string, deploymentId: string, params: Schemas['CreateReview'], options?: RequestOptions): Promise<Schemas['Review']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/deployments/{deployment_id}/reviews', pathParams: [projectId, deploymentId], body: params }, options);
  }

  /**
   * The configuration a deployment runs with.
   *
   * Every variable of the deployment’s environment, secret values in clear: to the credential that
   * created the deployment or an admin (else `forbidden`), and only while it is `queued`,
   * `building` or `deploying` (else `deployment_not_active`). Each answer is recorded as a
   * `configuration.released` event (keys only, never values).
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}/configuration`
   */
  getConfiguration(projectId: string, deploymentId: string, options?: RequestOptions): Promise<Schemas['DeploymentConfiguration']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/deployments/{deployment_id}/configuration', pathParams: [projectId, deploymentId] }, options);
  }
}
