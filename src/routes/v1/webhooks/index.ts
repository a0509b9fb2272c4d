import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentDelivery, presentWebhook } from '../../../presenters/webhooks.ts';
import type { V1Deps } from '../deps.ts';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryList,
  DeliveryParams,
  ListWebhooksQuery,
  UpdateWebhookBody,
  Webhook,
  WebhookList,
  WebhookParams,
  WebhookPayload,
  WebhookWithSecret,
} from '../../../schemas/webhooks.ts';

const tags = ['Webhooks'];

const DELIVERY_DOC = [
  'Each delivery is a `POST` of the event object (`WebhookPayload`) as JSON with the headers `Slipway-Event` (the type), `Slipway-Delivery` (the delivery id, the same on every retry and redelivery), `User-Agent` and',
  '`Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the whole whsec_… secret>`. For 24 h after a rotation there is a second `v1=`, made with the previous secret: accept the request when any `v1` matches (compare in constant time) and `t` is recent.',
  'An answer other than 2xx within 10 s (redirects are not followed) is retried with exponential backoff and jitter for 24 h; after 24 h of failures the endpoint is disabled and a `webhook.disabled` event records it.',
].join(' ');

/** Webhook endpoints of the account (docs/product.md §7). Admin only, never an API key. */
export function registerWebhookRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { webhooks } = services;
  const idempotentCreation = idempotent({ shownOnceResponseFields: ['secret'], newResourceId: () => newId('webhook') });
  const idempotentRotation = idempotent({ shownOnceResponseFields: ['secret'] });

  api.registry.registerWebhook({
    method: 'post',
    path: 'event',
    operationId: 'webhookDelivery',
    summary: 'A delivery to your endpoint',
    description: DELIVERY_DOC,
    tags,
    request: { body: { required: true, content: { 'application/json': { schema: WebhookPayload } } } },
    responses: { 200: { description: 'Any 2xx acknowledges the delivery; anything else, or no answer within 10 s, is retried.' } },
  });

  api.get(
    '/webhooks',
    { operationId: 'listWebhooks', summary: 'List webhooks', description: 'Oldest first. Secrets are never listed.', tags, success: { status: 200, description: 'A page of webhooks.', schema: WebhookList } },
    authenticate,
    authorizeFor('list', 'webhook'),
    requireScope('admin'),
    validate({ query: ListWebhooksQuery }),
    async (ctx: ApiContext<{ query: ListWebhooksQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await webhooks.list(ctx.state.principal, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentWebhook), total, { page, per_page });
    },
  );

  api.post(
    '/webhooks',
    {
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description: `The signing \`secret\` is in this response only. ${DELIVERY_DOC}`,
      tags,
      success: created('The new webhook with its secret.', WebhookWithSecret, 'URL of the new webhook.'),
      errors: ['quota_exceeded'],
    },
    authenticate,
    authorizeFor('create', 'webhook'),
    requireScope('admin'),
    validate({ body: CreateWebhookBody }),
    idempotentCreation,
    async (ctx: ApiContext<{ body: CreateWebhookBody }>) => {
      const { webhook, secret } = await webhooks.create(ctx.state.principal, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/webhooks/${webhook._id}`, { ...presentWebhook(webhook), secret });
    },
  );

  api.get(
    '/webhooks/:webhook_id',
    { operationId: 'getWebhook', summary: 'Get a webhook', description: 'Never shows the secret.', tags, success: { status: 200, description: 'The webhook.', schema: Webhook } },
    authenticate,
    authorizeFor('read', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams }),
    async (ctx: ApiContext<{ params: WebhookParams }>) => {
      ctx.body = presentWebhook(await webhooks.get(ctx.state.principal, ctx.input.params.webhook_id));
    },
  );

  api.patch(
    '/webhooks/:webhook_id',
    {
      operationId: 'updateWebhook',
      summary: 'Update a webhook',
      description: 'Change `url` (checked again), `events`, `description` or `status` (`enabled` | `disabled`).',
      tags,
      success: { status: 200, description: 'The updated webhook.', schema: Webhook },
    },
    authenticate,
    authorizeFor('update', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams, body: UpdateWebhookBody }),
    async (ctx: ApiContext<{ params: WebhookParams; body: UpdateWebhookBody }>) => {
      ctx.body = presentWebhook(await webhooks.update(ctx.state.principal, ctx.input.params.webhook_id, ctx.input.body));
    },
  );

  api.delete(
    '/webhooks/:webhook_id',
    { operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Removes it with its delivery log; pending deliveries are dropped.', tags, success: { status: 204, description: 'Deleted.' } },
    authenticate,
    authorizeFor('delete', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams }),
    async (ctx: ApiContext<{ params: WebhookParams }>) => {
      await webhooks.delete(ctx.state.principal, ctx.input.params.webhook_id);
      ctx.status = 204;
    },
  );

  api.post(
    '/webhooks/:webhook_id/rotate_secret',
    {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'A new `secret`, in this response only. The previous secret keeps signing beside it for 24 h (a second `v1=` in `Slipway-Signature`), so receivers can roll over.',
      tags,
      success: { status: 200, description: 'The webhook with its new secret.', schema: WebhookWithSecret },
    },
    authenticate,
    authorizeFor('rotate_secret', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams }),
    idempotentRotation,
    async (ctx: ApiContext<{ params: WebhookParams }>) => {
      const { webhook, secret } = await webhooks.rotateSecret(ctx.state.principal, ctx.input.params.webhook_id);
      ctx.body = { ...presentWebhook(webhook), secret };
    },
  );

  api.post(
    '/webhooks/:webhook_id/ping',
    {
      operationId: 'pingWebhook',
      summary: 'Send a ping',
      description: 'Queues a `webhook.ping` event to the endpoint, whatever it subscribes to. A disabled endpoint is `conflict`.',
      tags,
      success: { status: 201, description: 'The queued delivery.', schema: Delivery },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('ping', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams }),
    async (ctx: ApiContext<{ params: WebhookParams }>) => {
      ctx.status = 201;
      ctx.body = presentDelivery(await webhooks.ping(ctx.state.principal, ctx.input.params.webhook_id));
    },
  );

  api.get(
    '/webhooks/:webhook_id/deliveries',
    {
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries',
      description: 'The delivery log, newest first: the event, each attempt (status code, duration, error) and the next attempt time.',
      tags,
      success: { status: 200, description: 'A page of deliveries.', schema: DeliveryList },
    },
    authenticate,
    authorizeFor('read', 'webhook'),
    requireScope('admin'),
    validate({ params: WebhookParams, query: ListWebhooksQuery }),
    async (ctx: ApiContext<{ params: WebhookParams; query: ListWebhooksQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await webhooks.listDeliveries(ctx.state.principal, ctx.input.params.webhook_id, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentDelivery), total, { page, per_page });
    },
  );

  api.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    {
      operationId: 'redeliverWebhookDelivery',
      summary: 'Redeliver',
      description: 'Sends the delivery again: same `Slipway-Delivery` id and body, a new signature, retried like a new one. A delivery still pending, or an endpoint that is disabled, is `conflict`.',
      tags,
      success: { status: 200, description: 'The delivery, pending again.', schema: Delivery },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('redeliver', 'webhook'),
    requireScope('admin'),
    validate({ params: DeliveryParams }),
    async (ctx: ApiContext<{ params: DeliveryParams }>) => {
      const { webhook_id, delivery_id } = ctx.input.params;
      ctx.body = presentDelivery(await webhooks.redeliver(ctx.state.principal, webhook_id, delivery_id));
    },
  );
}
