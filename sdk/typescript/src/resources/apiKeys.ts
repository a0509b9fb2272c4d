// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.apiKeys`: the operations tagged "API keys".
 */
export class APIKeys extends Resource {
  /**
   * List API keys of a project.
   *
   * Oldest first, revoked keys included (filter with `status`). Never shows a secret. Only for user
   * and client credentials.
   *
   * `GET /v1/projects/{project_id}/api_keys`
   */
  list(projectId: string, params?: operations['listApiKeys']['parameters']['query'], options?: RequestOptions): Promise<Schemas['ApiKeyList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/api_keys', pathParams: [projectId], query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/api_keys`
   */
  listAll(projectId: string, params?: operations['listApiKeys']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['ApiKey'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/api_keys', pathParams: [projectId], query: params }, options);
  }

  /**
   * Create an API key.
   *
   * A key acts as its project alone, with its scopes. The response is the only place the secret
   * (`key`) ever appears: Slipway stores only its SHA-256. Archived projects refuse it. Only for
   * user and client credentials.
   *
   * `POST /v1/projects/{project_id}/api_keys` (safe to retry: sends an `Idempotency-Key`)
   */
  create(projectId: string, params: Schemas['CreateApiKey'], options?: RequestOptions): Promise<Schemas['IssuedApiKey']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/api_keys', pathParams: [projectId], body: params, idempotent: true }, options);
  }

  /**
   * Get an API key.
   *
   * Never shows the secret. Only for user and client credentials.
   *
   * `GET /v1/projects/{project_id}/api_keys/{api_key_id}`
   */
  get(projectId: string, apiKeyId: string, options?: RequestOptions): Promise<Schemas['ApiKey']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/api_keys/{api_key_id}', pathParams: [projectId, apiKeyId] }, options);
  }

  /**
   * Revoke an API key.
   *
   * The key stops working at once on this instance and within 30 s on every other one; its secrets
   * are deleted. It stays listed with `status: "revoked"`, so the answer is the revoked key (200),
   * and revoking it again returns it unchanged. Allowed on archived projects too: removing access
   * is never blocked. Only for user and client credentials.
   *
   * `DELETE /v1/projects/{project_id}/api_keys/{api_key_id}`
   */
  revoke(projectId: string, apiKeyId: string, options?: RequestOptions): Promise<Schemas['ApiKey']> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}/api_keys/{api_key_id}', pathParams: [projectId, apiKeyId] }, options);
  }

  /**
   * Rotate an API key.
   *
   * Issues a new secret for the same key id, working at once. The previous secret keeps working for
   * `grace_period_seconds` (default 0: it stops now). Other keys are untouched. Revoked or expired
   * keys cannot be rotated (`conflict`); archived projects refuse it. Only for user and client
   * credentials.
   *
   * `POST /v1/projects/{project_id}/api_keys/{api_key_id}/rotate` (safe to retry: sends an
   * `Idempotency-Key`)
   */
  rotate(projectId: string, apiKeyId: string, params: Schemas['RotateApiKey'] = {}, options?: RequestOptions): Promise<Schemas['IssuedApiKey']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/api_keys/{api_key_id}/rotate', pathParams: [projectId, apiKeyId], body: params, idempotent: true }, options);
  }
}
