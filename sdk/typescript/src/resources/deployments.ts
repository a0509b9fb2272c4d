import type { RequestOptions } from '../core.js';
import type { CreateDeploymentParams, Deployment, ListDeploymentsParams, Page, PageParams, UpdateDeploymentParams } from '../types.js';
import { Resource, seg } from './base.js';

/** `client.projects.deployments`: the deployments of one project. */
export class Deployments extends Resource {
  #path = (projectId: string) => `/v1/projects/${seg(projectId)}/deployments`;

  /** One page, newest first; filter by `environment`, `status`, `branch`. */
  list(projectId: string, params?: ListDeploymentsParams & PageParams, options?: RequestOptions): Promise<Page<Deployment>> {
    return this.listPage(this.#path(projectId), params, options);
  }

  /** Every matching deployment, page by page as the loop advances. */
  listAll(projectId: string, params?: ListDeploymentsParams & PageParams, options?: RequestOptions): AsyncGenerator<Deployment, void, undefined> {
    return this.listEvery(this.#path(projectId), params, options);
  }

  /** Records a deployment (`queued`); safe to retry (Idempotency-Key). */
  create(projectId: string, params: CreateDeploymentParams, options?: RequestOptions): Promise<Deployment> {
    return this.api.request({ method: 'POST', path: this.#path(projectId), body: params, idempotent: true }, options);
  }

  get(projectId: string, deploymentId: string, options?: RequestOptions): Promise<Deployment> {
    return this.api.request({ method: 'GET', path: `${this.#path(projectId)}/${seg(deploymentId)}` }, options);
  }

  /** Reports progress: `status` (queued → building → deploying → succeeded/failed/canceled), `url`, `status_message`. */
  update(projectId: string, deploymentId: string, params: UpdateDeploymentParams, options?: RequestOptions): Promise<Deployment> {
    return this.api.request({ method: 'PATCH', path: `${this.#path(projectId)}/${seg(deploymentId)}`, body: params }, options);
  }
}
