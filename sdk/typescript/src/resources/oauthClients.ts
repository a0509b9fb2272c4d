import type { RequestOptions } from '../core.js';
import type { OAuthClient, Page, PageParams, RegisteredOAuthClient, RegisterOAuthClientParams } from '../types.js';
import { Resource, seg } from './base.js';

/** `client.oauthClients`: OAuth applications of the account (needs `admin`). */
export class OAuthClients extends Resource {
  list(params?: PageParams, options?: RequestOptions): Promise<Page<OAuthClient>> {
    return this.listPage('/v1/oauth_clients', params, options);
  }

  listAll(params?: PageParams, options?: RequestOptions): AsyncGenerator<OAuthClient, void, undefined> {
    return this.listEvery('/v1/oauth_clients', params, options);
  }

  /** Registers an application; a confidential one's `client_secret` is in this response only. */
  create(params: RegisterOAuthClientParams, options?: RequestOptions): Promise<RegisteredOAuthClient> {
    return this.api.request({ method: 'POST', path: '/v1/oauth_clients', body: params, idempotent: true }, options);
  }

  get(clientId: string, options?: RequestOptions): Promise<OAuthClient> {
    return this.api.request({ method: 'GET', path: `/v1/oauth_clients/${seg(clientId)}` }, options);
  }

  /** Deletes the client and revokes every grant it holds. */
  delete(clientId: string, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'DELETE', path: `/v1/oauth_clients/${seg(clientId)}` }, options);
  }

  /** A new secret for a confidential client (shown in this response only). */
  rotateSecret(clientId: string, options?: RequestOptions): Promise<RegisteredOAuthClient> {
    return this.api.request({ method: 'POST', path: `/v1/oauth_clients/${seg(clientId)}/rotate_secret`, idempotent: true }, options);
  }
}
