import type { RequestOptions, ApiClient } from '../core.js';
import type { CreateProjectParams, Page, PageParams, Project, UpdateProjectParams } from '../types.js';
import { ApiKeys } from './apiKeys.js';
import { Resource, seg } from './base.js';
import { Configurations } from './configurations.js';
import { Deployments } from './deployments.js';

/** `client.projects`, with the resources inside a project: `deployments`, `configurations`, `apiKeys`. */
export class Projects extends Resource {
  readonly deployments: Deployments;
  readonly configurations: Configurations;
  readonly apiKeys: ApiKeys;

  constructor(api: ApiClient) {
    super(api);
    this.deployments = new Deployments(api);
    this.configurations = new Configurations(api);
    this.apiKeys = new ApiKeys(api);
  }

  /** One page of the account's projects, newest first (an API key sees only its own). */
  list(params?: PageParams, options?: RequestOptions): Promise<Page<Project>> {
    return this.listPage('/v1/projects', params, options);
  }

  /** Every project, fetched page by page as the loop advances: `for await (const p of client.projects.listAll())`. */
  listAll(params?: PageParams, options?: RequestOptions): AsyncGenerator<Project, void, undefined> {
    return this.listEvery('/v1/projects', params, options);
  }

  /** Creates a project (`active`); safe to retry (Idempotency-Key). */
  create(params: CreateProjectParams, options?: RequestOptions): Promise<Project> {
    return this.api.request({ method: 'POST', path: '/v1/projects', body: params, idempotent: true }, options);
  }

  get(projectId: string, options?: RequestOptions): Promise<Project> {
    return this.api.request({ method: 'GET', path: `/v1/projects/${seg(projectId)}` }, options);
  }

  /** Renames, changes `deploy_target`, or moves `status` (active ⇄ paused, → archived, archived → active). */
  update(projectId: string, params: UpdateProjectParams, options?: RequestOptions): Promise<Project> {
    return this.api.request({ method: 'PATCH', path: `/v1/projects/${seg(projectId)}`, body: params }, options);
  }

  /** Deletes the project with its deployments and configurations, and revokes its API keys (needs `admin`). */
  delete(projectId: string, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'DELETE', path: `/v1/projects/${seg(projectId)}` }, options);
  }
}
