import { createOnce } from './createOnce.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { WebhookDeliveryDoc } from '../repositories/webhookDeliveries.ts';
import type { WebhookLeaseRepository } from '../repositories/webhookLeases.ts';
import type { WebhookDoc, WebhookSecret, WebhookStatus } from '../repositories/webhooks.ts';
import { presentEvent } from '../presenters/events.ts';
import { recordEvent, type ServiceContext } from './events.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import { enqueueDelivery, type WebhookQueueDeps } from './webhookFanOut.ts';
import { newWebhookSecret } from './webhookSigning.ts';
import { checkTarget, TargetRefused, type TargetPolicy } from './webhookTargets.ts';

/** How long a rotated-out secret keeps signing beside the new one, so receivers can roll over. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookDeps extends WebhookQueueDeps {
  webhookLeases: WebhookLeaseRepository;
  events: EventRepository;
  secretBox: SecretBox;
  policy: TargetPolicy;
}

export interface CreateWebhookInput {
  url: string;
  events: string[];
  description?: string | null | undefined;
  status?: WebhookStatus | undefined;
}

export type UpdateWebhookInput = Partial<CreateWebhookInput>;

const secretAad = (webhookId: string) => `webhook-secret:${webhookId}`;

function sealSecret(deps: Pick<WebhookDeps, 'secretBox'>, webhookId: string, secret: string, now: Date): WebhookSecret {
  return { sealed: deps.secretBox.seal(secret, secretAad(webhookId)), created_at: now, expires_at: null };
}

/** The secrets that sign now: the current one, and a rotated-out one for its 24 h of overlap. */
export function signingSecrets(secretBox: SecretBox, webhook: WebhookDoc, now = new Date()): string[] {
  return webhook.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => secretBox.open(s.sealed, secretAad(webhook._id)));
}

/** Resolves and checks the URL (SSRF); a refusal is 422 on `url`. */
async function assertTarget(policy: TargetPolicy, url: string): Promise<void> {
  try {
    await checkTarget(url, policy);
  } catch (err) {
    if (err instanceof TargetRefused) throw validationFailed([{ field: 'url', message: err.message }]);
    throw err;
  }
}

/** What the audit log and the `webhook.*` payloads say of an endpoint: never the URL's path or query, which may hold a token. */
function eventData(webhook: WebhookDoc) {
  return { webhook_id: webhook._id, host: new URL(webhook.url).host, events: webhook.events, status: webhook.status };
}

/** A new endpoint; the signing secret is returned this once. */
export async function createWebhook(
  deps: WebhookDeps,
  ctx: ServiceContext,
  input: CreateWebhookInput,
  reservedId?: string,
): Promise<{ webhook: WebhookDoc; secret: string | null }> {
  await assertTarget(deps.policy, input.url);
  // An earlier run of the same request (Idempotency-Key) registered it already: that endpoint is the
  // answer, without its secret (shown once; rotate it for a new one).
  const { doc } = await createOnce<{ webhook: WebhookDoc; secret: string | null }>(
    reservedId,
    async (existing) => {
      const webhook = await deps.webhooks.findInAccount(ctx.accountId, existing);
      return webhook ? { webhook, secret: null } : null;
    },
    () => insertWebhook(deps, ctx, input, reservedId),
  );
  return doc;
}

async function insertWebhook(deps: WebhookDeps, ctx: ServiceContext, input: CreateWebhookInput, reservedId: string | undefined): Promise<{ webhook: WebhookDoc; secret: string }> {
  const now = new Date();
  const id = reservedId ?? newId('whk', now.getTime());
  const secret = newWebhookSecret();
  const webhook: WebhookDoc = {
    _id: id,
    account_id: ctx.accountId,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    status: input.status ?? 'enabled',
    secrets: [sealSecret(deps, id, secret, now)],
    created_at: now,
    updated_at: now,
  };
  await deps.webhooks.insert(webhook);
  await recordEvent(deps, { accountId: ctx.accountId, type: 'webhook.created', actor: ctx.actor, data: eventData(webhook), at: now });
  return { webhook, secret };
}

export async function listWebhooks(deps: Pick<WebhookDeps, 'webhooks'>, accountId: string, page: PageRequest): Promise<PageResult<WebhookDoc>> {
  return await deps.webhooks.page(accountId, page);
}

export async function getWebhook(deps: Pick<WebhookDeps, 'webhooks'>, accountId: string, id: string): Promise<WebhookDoc> {
  const webhook = await deps.webhooks.findInAccount(accountId, id);
  if (!webhook) throw notFound('No such webhook.');
  return webhook;
}

export async function updateWebhook(deps: WebhookDeps, ctx: ServiceContext, id: string, input: UpdateWebhookInput): Promise<WebhookDoc> {
  const current = await getWebhook(deps, ctx.accountId, id);
  if (input.url !== undefined && input.url !== current.url) await assertTarget(deps.policy, input.url);
  const set: Partial<WebhookDoc> = { updated_at: new Date() };
  if (input.url !== undefined) set.url = input.url;
  if (input.events !== undefined) set.events = [...new Set(input.events)];
  if (input.description !== undefined) set.description = input.description;
  if (input.status !== undefined) set.status = input.status;
  const updated = await deps.webhooks.update(ctx.accountId, id, set);
  if (!updated) throw notFound('No such webhook.');
  const changes = Object.keys(input);
  await recordEvent(deps, { accountId: ctx.accountId, type: 'webhook.updated', actor: ctx.actor, data: { ...eventData(updated), changes } });
  return updated;
}

/** Removes the endpoint, its delivery log and its pending deliveries. */
export async function deleteWebhook(deps: WebhookDeps, ctx: ServiceContext, id: string): Promise<WebhookDoc> {
  const webhook = await deps.webhooks.delete(ctx.accountId, id);
  if (!webhook) throw notFound('No such webhook.');
  await deps.webhookQueue.removeForWebhook(webhook._id);
  await deps.webhookDeliveries.deleteForWebhook(webhook._id);
  await recordEvent(deps, { accountId: ctx.accountId, type: 'webhook.deleted', actor: ctx.actor, data: eventData(webhook) });
  return webhook;
}

/**
 * A new signing secret, returned this once. The previous current secret keeps signing beside it for
 * 24 h (two `v1=` signatures) so receivers can roll over; older ones stop at once.
 */
export async function rotateWebhookSecret(deps: WebhookDeps, ctx: ServiceContext, id: string): Promise<{ webhook: WebhookDoc; secret: string }> {
  const current = await getWebhook(deps, ctx.accountId, id);
  const now = new Date();
  const secret = newWebhookSecret();
  const previous = current.secrets.find((s) => s.expires_at === null);
  const secrets = [sealSecret(deps, id, secret, now), ...(previous ? [{ ...previous, expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS) }] : [])];
  const webhook = await deps.webhooks.update(ctx.accountId, id, { secrets, updated_at: now });
  if (!webhook) throw notFound('No such webhook.');
  await recordEvent(deps, { accountId: ctx.accountId, type: 'webhook.secret_rotated', actor: ctx.actor, data: eventData(webhook), at: now });
  return { webhook, secret };
}

/** Sends a `webhook.ping` event to the endpoint, whatever it subscribes to (not recorded in the audit log). */
export async function pingWebhook(deps: WebhookDeps, ctx: ServiceContext, id: string): Promise<WebhookDeliveryDoc> {
  const webhook = await getWebhook(deps, ctx.accountId, id);
  if (webhook.status !== 'enabled') throw conflict('The webhook is disabled; enable it first.');
  const now = new Date();
  const event = presentEvent({
    _id: newId('evt', now.getTime()),
    account_id: ctx.accountId,
    type: 'webhook.ping',
    actor: ctx.actor,
    project_id: null,
    data: { webhook_id: webhook._id },
    created_at: now,
  });
  return await enqueueDelivery(deps, webhook, event, JSON.stringify(event), now);
}

export async function listDeliveries(deps: WebhookDeps, accountId: string, webhookId: string, page: PageRequest): Promise<PageResult<WebhookDeliveryDoc>> {
  await getWebhook(deps, accountId, webhookId);
  return await deps.webhookDeliveries.page(accountId, webhookId, page);
}

/**
 * Sends a delivery again, same id and body, with a fresh retry window. A delivery still pending is
 * already being retried (409 `conflict`), as is one to a disabled endpoint.
 */
export async function redeliver(deps: WebhookDeps, ctx: ServiceContext, webhookId: string, deliveryId: string): Promise<WebhookDeliveryDoc> {
  const webhook = await getWebhook(deps, ctx.accountId, webhookId);
  const delivery = await deps.webhookDeliveries.findForWebhook(ctx.accountId, webhookId, deliveryId);
  if (!delivery) throw notFound('No such delivery.');
  if (webhook.status !== 'enabled') throw conflict('The webhook is disabled; enable it first.');
  if (delivery.status === 'pending') throw conflict('The delivery is still pending; it will be retried.');
  const now = new Date();
  // Marked pending before it is queued, so the dispatcher's result can never be overwritten by this.
  await deps.webhookDeliveries.recordAttempt(delivery._id, null, { status: 'pending', next_attempt_at: now });
  // The lease ids of earlier rounds are `${id}#1…n`; a redelivery starts its own range.
  const queued = await deps.webhookQueue.insert({ _id: delivery._id, webhook_id: webhookId, due_at: now, seq: now.getTime(), window_started_at: now });
  if (!queued) throw conflict('The delivery is already queued.');
  return { ...delivery, status: 'pending', next_attempt_at: now, updated_at: now };
}

/** The service's dependencies from the process's repositories, secret box and configuration. */
export function webhookDeps(repos: Omit<WebhookDeps, 'secretBox' | 'policy'>, secretBox: SecretBox, config: { webhookAllowLoopback: boolean }): WebhookDeps {
  return { ...repos, secretBox, policy: { allowLoopback: config.webhookAllowLoopback } };
}
