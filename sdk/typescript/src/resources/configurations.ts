import type { RequestOptions } from '../core.js';
import type {
  Configuration,
  CreateConfigurationParams,
  GetConfigurationParams,
  ListConfigurationsParams,
  Page,
  PageParams,
  UpdateConfigurationParams,
} from '../types.js';
import { Resource, seg } from './base.js';

/** `client.projects.configurations`: configuration values of one project, per environment. */
export class Configurations extends Resource {
  #path = (projectId: string) => `/v1/projects/${seg(projectId)}/configurations`;

  /** One page; `environment` filters, `reveal: true` shows secret values (needs `admin`). */
  list(projectId: string, params?: ListConfigurationsParams & PageParams, options?: RequestOptions): Promise<Page<Configuration>> {
    return this.listPage(this.#path(projectId), params, options);
  }

  listAll(projectId: string, params?: ListConfigurationsParams & PageParams, options?: RequestOptions): AsyncGenerator<Configuration, void, undefined> {
    return this.listEvery(this.#path(projectId), params, options);
  }

  create(projectId: string, params: CreateConfigurationParams, options?: RequestOptions): Promise<Configuration> {
    return this.api.request({ method: 'POST', path: this.#path(projectId), body: params, idempotent: true }, options);
  }

  get(projectId: string, configurationId: string, params?: GetConfigurationParams, options?: RequestOptions): Promise<Configuration> {
    return this.api.request({ method: 'GET', path: `${this.#path(projectId)}/${seg(configurationId)}`, query: params }, options);
  }

  update(projectId: string, configurationId: string, params: UpdateConfigurationParams, options?: RequestOptions): Promise<Configuration> {
    return this.api.request({ method: 'PATCH', path: `${this.#path(projectId)}/${seg(configurationId)}`, body: params }, options);
  }

  delete(projectId: string, configurationId: string, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'DELETE', path: `${this.#path(projectId)}/${seg(configurationId)}` }, options);
  }
}
