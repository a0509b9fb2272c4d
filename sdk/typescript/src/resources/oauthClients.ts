// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.oauthClients`: the operations tagged "OAuth clients".
 */
export class OAuthClients extends Resource {
  /**
   * List OAuth clients.
   *
   * Oldest first. Only for user and client credentials.
   *
   * `GET /v1/oauth_clients`
   */
  list(params?: operations['listOAuthClients']['parameters']['query'], options?: RequestOptions): Promise<Schemas['OAuthClientList']> {
    return this.call({ method: 'GET', path: '/v1/oauth_clients', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/oauth_clients`
   */
  listAll(params?: operations['listOAuthClients']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['OAuthClient'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/oauth_clients', query: params }, options);
  }

  /**
   * Register an OAuth client.
   *
   * RFC 7591 field names. A confidential client (`client_secret_basic`) gets a `client_secret`,
   * shown in this response only. Every client uses PKCE (S256) for the authorization code flow;
   * redirect URIs match exactly. Only for user and client credentials.
   *
   * `POST /v1/oauth_clients` (safe to retry: sends an `Idempotency-Key`)
   */
  create(params: Schemas['RegisterOAuthClient'], options?: RequestOptions): Promise<Schemas['RegisteredOAuthClient']> {
    return this.call({ method: 'POST', path: '/v1/oauth_clients', body: params, idempotent: true }, options);
  }

  /**
   * Get an OAuth client.
   *
   * Never shows the secret. Only for user and client credentials.
   *
   * `GET /v1/oauth_clients/{client_id}`
   */
  get(clientId: string, options?: RequestOptions): Promise<Schemas['OAuthClient']> {
    return this.call({ method: 'GET', path: '/v1/oauth_clients/{client_id}', pathParams: [clientId] }, options);
  }

  /**
   * Delete an OAuth client.
   *
   * Revokes every grant made to it: its refresh tokens stop working at once, and its access tokens
   * (user and client_credentials) at once on the instance that deleted it and within
   * `REVOCATION_REFRESH_SECONDS` (15 s) on the others. Only for user and client credentials.
   *
   * `DELETE /v1/oauth_clients/{client_id}`
   */
  delete(clientId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/oauth_clients/{client_id}', pathParams: [clientId] }, options);
  }

  /**
   * Rotate a client secret.
   *
   * A new `client_secret`, shown in this response only; the old one stops working at once on the
   * instance that rotated it and within `PRINCIPAL_CACHE_SECONDS` (15 s) on the others. Public
   * clients have no secret (`conflict`). Only for user and client credentials.
   *
   * `POST /v1/oauth_clients/{client_id}/rotate_secret` (safe to retry: sends an `Idempotency-Key`)
   */
  rotateSecret(clientId: string, options?: RequestOptions): Promise<Schemas['RegisteredOAuthClient']> {
    return this.call({ method: 'POST', path: '/v1/oauth_clients/{client_id}/rotate_secret', pathParams: [clientId], idempotent: true }, options);
  }
}
