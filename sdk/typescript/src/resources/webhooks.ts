import type { RequestOptions } from '../core.js';
import type { CreateWebhookParams, Page, PageParams, UpdateWebhookParams, Webhook, WebhookDelivery, WebhookWithSecret } from '../types.js';
import { Resource, seg } from './base.js';

/**
 * `client.webhooks`: the account's webhook endpoints (needs `admin`, never an API key). Check what
 * they receive with `verifyWebhookSignature` / `constructWebhookEvent`.
 */
export class Webhooks extends Resource {
  #path = (webhookId: string) => `/v1/webhooks/${seg(webhookId)}`;

  /** One page, oldest first (secrets are never listed). */
  list(params?: PageParams, options?: RequestOptions): Promise<Page<Webhook>> {
    return this.listPage('/v1/webhooks', params, options);
  }

  /** Every webhook, page by page as the loop advances. */
  listAll(params?: PageParams, options?: RequestOptions): AsyncGenerator<Webhook, void, undefined> {
    return this.listEvery('/v1/webhooks', params, options);
  }

  /** Registers an endpoint; its signing `secret` (`whsec_…`) is in this response only. Safe to retry (Idempotency-Key). */
  create(params: CreateWebhookParams, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.api.request({ method: 'POST', path: '/v1/webhooks', body: params, idempotent: true }, options);
  }

  get(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    return this.api.request({ method: 'GET', path: this.#path(webhookId) }, options);
  }

  /** Changes `url`, `events`, `description` or `status` (`enabled` | `disabled`). */
  update(webhookId: string, params: UpdateWebhookParams, options?: RequestOptions): Promise<Webhook> {
    return this.api.request({ method: 'PATCH', path: this.#path(webhookId), body: params }, options);
  }

  /** Deletes the endpoint with its delivery log; pending deliveries are dropped. */
  delete(webhookId: string, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'DELETE', path: this.#path(webhookId) }, options);
  }

  /** A new signing secret (in this response only); the previous one keeps signing beside it for 24 h. */
  rotateSecret(webhookId: string, options?: RequestOptions): Promise<WebhookWithSecret> {
    return this.api.request({ method: 'POST', path: `${this.#path(webhookId)}/rotate_secret`, idempotent: true }, options);
  }

  /** Queues a `webhook.ping` event to the endpoint; resolves with the queued delivery. */
  ping(webhookId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.api.request({ method: 'POST', path: `${this.#path(webhookId)}/ping` }, options);
  }

  /** One page of the endpoint's delivery log, newest first. */
  listDeliveries(webhookId: string, params?: PageParams, options?: RequestOptions): Promise<Page<WebhookDelivery>> {
    return this.listPage(`${this.#path(webhookId)}/deliveries`, params, options);
  }

  /** Every delivery of the endpoint, newest first, page by page as the loop advances. */
  listAllDeliveries(webhookId: string, params?: PageParams, options?: RequestOptions): AsyncGenerator<WebhookDelivery, void, undefined> {
    return this.listEvery(`${this.#path(webhookId)}/deliveries`, params, options);
  }

  /** Sends a delivery again: the same `Slipway-Delivery` id and body, a new signature. */
  redeliver(webhookId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.api.request({ method: 'POST', path: `${this.#path(webhookId)}/deliveries/${seg(deliveryId)}/redeliver` }, options);
  }
}
