// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.webhooks`: the operations tagged "Webhooks".
 */
export class Webhooks extends Resource {
  /**
   * List webhooks.
   *
   * Oldest first. Secrets are never listed. Only for user and client credentials.
   *
   * `GET /v1/webhooks`
   */
  list(params?: operations['listWebhooks']['parameters']['query'], options?: RequestOptions): Promise<Schemas['WebhookList']> {
    return this.call({ method: 'GET', path: '/v1/webhooks', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/webhooks`
   */
  listAll(params?: operations['listWebhooks']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['Webhook'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/webhooks', query: params }, options);
  }

  /**
   * Create a webhook.
   *
   * The signing `secret` is in this response only. Each delivery is a `POST` of the event object
   * (`WebhookPayload`) as JSON with the headers `Slipway-Event` (the type), `Slipway-Delivery` (the
   * delivery id, the same on every retry and redelivery), `User-Agent` and `Slipway-Signature:
   * t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the whole whsec_… secret>`. For
   * 24 h after a rotation there is a second `v1=`, made with the previous secret: accept the
   * request when any `v1` matches (compare in constant time) and `t` is recent. An answer other
   * than 2xx within 10 s (redirects are not followed) is retried with exponential backoff and
   * jitter for 24 h; after 24 h of failures the endpoint is disabled and a `webhook.disabled` event
   * records it. Only for user and client credentials.
   *
   * `POST /v1/webhooks` (safe to retry: sends an `Idempotency-Key`)
   */
  create(params: Schemas['CreateWebhook'], options?: RequestOptions): Promise<Schemas['WebhookWithSecret']> {
    return this.call({ method: 'POST', path: '/v1/webhooks', body: params, idempotent: true }, options);
  }

  /**
   * Get a webhook.
   *
   * Never shows the secret. Only for user and client credentials.
   *
   * `GET /v1/webhooks/{webhook_id}`
   */
  get(webhookId: string, options?: RequestOptions): Promise<Schemas['Webhook']> {
    return this.call({ method: 'GET', path: '/v1/webhooks/{webhook_id}', pathParams: [webhookId] }, options);
  }

  /**
   * Update a webhook.
   *
   * Change `url` (checked again), `events`, `description` or `status` (`enabled` | `disabled`).
   * Only for user and client credentials.
   *
   * `PATCH /v1/webhooks/{webhook_id}`
   */
  update(webhookId: string, params: Schemas['UpdateWebhook'], options?: RequestOptions): Promise<Schemas['Webhook']> {
    return this.call({ method: 'PATCH', path: '/v1/webhooks/{webhook_id}', pathParams: [webhookId], body: params }, options);
  }

  /**
   * Delete a webhook.
   *
   * Removes it with its delivery log; pending deliveries are dropped. Only for user and client
   * credentials.
   *
   * `DELETE /v1/webhooks/{webhook_id}`
   */
  delete(webhookId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/webhooks/{webhook_id}', pathParams: [webhookId] }, options);
  }

  /**
   * Rotate the signing secret.
   *
   * A new `secret`, in this response only. The previous secret keeps signing beside it for 24 h (a
   * second `v1=` in `Slipway-Signature`), so receivers can roll over. Only for user and client
   * credentials.
   *
   * `POST /v1/webhooks/{webhook_id}/rotate_secret` (safe to retry: sends an `Idempotency-Key`)
   */
  rotateSecret(webhookId: string, options?: RequestOptions): Promise<Schemas['WebhookWithSecret']> {
    return this.call({ method: 'POST', path: '/v1/webhooks/{webhook_id}/rotate_secret', pathParams: [webhookId], idempotent: true }, options);
  }

  /**
   * Send a ping.
   *
   * Queues a `webhook.ping` event to the endpoint, whatever it subscribes to. A disabled endpoint
   * is `conflict`. Only for user and client credentials.
   *
   * `POST /v1/webhooks/{webhook_id}/ping`
   */
  ping(webhookId: string, options?: RequestOptions): Promise<Schemas['WebhookDelivery']> {
    return this.call({ method: 'POST', path: '/v1/webhooks/{webhook_id}/ping', pathParams: [webhookId] }, options);
  }

  /**
   * List deliveries.
   *
   * The delivery log, newest first: the event, each attempt (status code, duration, error) and the
   * next attempt time. Only for user and client credentials.
   *
   * `GET /v1/webhooks/{webhook_id}/deliveries`
   */
  listDeliveries(webhookId: string, params?: operations['listWebhookDeliveries']['parameters']['query'], options?: RequestOptions): Promise<Schemas['WebhookDeliveryList']> {
    return this.call({ method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries', pathParams: [webhookId], query: params }, options);
  }

  /**
   * Every item of `listDeliveries`, page after page: the next page is requested only when the loop
   * reaches it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/webhooks/{webhook_id}/deliveries`
   */
  listAllDeliveries(webhookId: string, params?: operations['listWebhookDeliveries']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['WebhookDelivery'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries', pathParams: [webhookId], query: params }, options);
  }

  /**
   * Redeliver.
   *
   * Sends the delivery again: same `Slipway-Delivery` id and body, a new signature, retried like a
   * new one. A delivery still pending, or an endpoint that is disabled, is `conflict`. Only for
   * user and client credentials.
   *
   * `POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver`
   */
  redeliver(webhookId: string, deliveryId: string, options?: RequestOptions): Promise<Schemas['WebhookDelivery']> {
    return this.call({ method: 'POST', path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', pathParams: [webhookId, deliveryId] }, options);
  }
}
