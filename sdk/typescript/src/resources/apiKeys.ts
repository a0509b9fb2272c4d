import type { RequestOptions } from '../core.js';
import type { ApiKey, CreateApiKeyParams, IssuedApiKey, ListApiKeysParams, Page, PageParams, RotateApiKeyParams } from '../types.js';
import { Resource, seg } from './base.js';

/** `client.projects.apiKeys`: API keys of one project (key management needs `admin`, never an API key). */
export class ApiKeys extends Resource {
  #path = (projectId: string) => `/v1/projects/${seg(projectId)}/api_keys`;

  list(projectId: string, params?: ListApiKeysParams & PageParams, options?: RequestOptions): Promise<Page<ApiKey>> {
    return this.listPage(this.#path(projectId), params, options);
  }

  listAll(projectId: string, params?: ListApiKeysParams & PageParams, options?: RequestOptions): AsyncGenerator<ApiKey, void, undefined> {
    return this.listEvery(this.#path(projectId), params, options);
  }

  /** A new key; its secret (`key`) is in this response only. */
  create(projectId: string, params: CreateApiKeyParams, options?: RequestOptions): Promise<IssuedApiKey> {
    return this.api.request({ method: 'POST', path: this.#path(projectId), body: params, idempotent: true }, options);
  }

  get(projectId: string, apiKeyId: string, options?: RequestOptions): Promise<ApiKey> {
    return this.api.request({ method: 'GET', path: `${this.#path(projectId)}/${seg(apiKeyId)}` }, options);
  }

  /** Revokes the key (it stays listed, `revoked`). */
  revoke(projectId: string, apiKeyId: string, options?: RequestOptions): Promise<ApiKey> {
    return this.api.request({ method: 'DELETE', path: `${this.#path(projectId)}/${seg(apiKeyId)}` }, options);
  }

  /** A new secret for the key; the old one keeps working for `grace_period_seconds` (default 0). */
  rotate(projectId: string, apiKeyId: string, params: Partial<RotateApiKeyParams> = {}, options?: RequestOptions): Promise<IssuedApiKey> {
    return this.api.request({ method: 'POST', path: `${this.#path(projectId)}/${seg(apiKeyId)}/rotate`, body: params, idempotent: true }, options);
  }
}
