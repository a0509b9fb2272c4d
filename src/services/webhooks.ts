import type { Config } from '../config/index.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Principal } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import { newId } from '../lib/ids.ts';
import { presentEvent } from '../presenters/events.ts';
import type { Repositories } from '../repositories/index.ts';
import type { WebhookDeliveryDoc } from '../repositories/webhookDeliveries.ts';
import type { WebhookDoc, WebhookSecret } from '../repositories/webhooks.ts';
import type { CreateWebhookBody, UpdateWebhookBody } from '../schemas/webhooks.ts';
import { createOnce } from './createOnce.ts';
import type { QuotaService } from './quotas.ts';
import { actorOf, type EventLog } from './eventLog.ts';
import type { WebhookFanOut } from './webhookFanOut.ts';
import { newWebhookSecret } from './webhookSigning.ts';
import { checkTarget, TargetRefused, type TargetPolicy } from './webhookTargets.ts';
import { AccountRecordService, AccountRecords } from './accountRecords.ts';
export type { WebhookDoc } from '../repositories/webhooks.ts';
export type { WebhookDeliveryDoc } from '../repositories/webhookDeliveries.ts';

/** How long a rotated-out secret keeps signing beside the new one, so receivers can roll over. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookServiceDeps extends Pick<Repositories, 'webhooks' | 'webhookDeliveries' | 'webhookQueue' | 'webhookCircuits'> {
  eventLog: EventLog;
  /** Queues a ping. */
  fanOut: WebhookFanOut;
  quotas: QuotaService;
  /** Seals signing secrets at rest. */
  secretBox: SecretBox;
  /** The target policy: `webhookAllowLoopback`. */
  config: Pick<Config, 'webhookAllowLoopback'>;
}

const secretAad = (webhookId: string) => `webhook-secret:${webhookId}`;

/** The secrets that sign now: the current one, and a rotated-out one for its 24 h of overlap. */
export function signingSecrets(secretBox: SecretBox, webhook: WebhookDoc, now = new Date()): string[] {
  return webhook.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => secretBox.open(s.sealed, secretAad(webhook._id)));
}

/** What the audit log and the `webhook.*` payloads say of an endpoint: never the URL's path or query, which may hold a token. */
function eventData(webhook: WebhookDoc) {
  return { webhook_id: webhook._id, host: new URL(webhook.url).host, events: webhook.events, status: webhook.status };
}

/**
 * The webhook endpoints of an account and their delivery logs (/v1/webhooks, Settings › Webhooks).
 * Deliveries are made by the WebhookDispatcher (started by server.ts); this queues them. Signing
 * secrets are sealed with the secret box; URLs are checked against the deployment's target policy
 * (`WEBHOOK_ALLOW_LOOPBACK`).
 */
export class WebhookService extends AccountRecordService<WebhookServiceDeps, WebhookDoc, 'webhook'> {
  protected readonly records = new AccountRecords(this.deps.webhooks, 'webhook');


  /**
   * A new endpoint; the signing secret is returned this once. `id` is the id reserved for this request
   * (Idempotency-Key): an endpoint that already has it was registered by an earlier run and is the
   * answer, without its secret (shown once; rotate it for a new one).
   */
  async create(principal: Principal, input: CreateWebhookBody, id?: string): Promise<{ webhook: WebhookDoc; secret: string | null }> {
    authorize(principal, 'create', 'webhook');
    await this.#assertTarget(input.url);
    const webhookId = id ?? newId('webhook');
    const { doc } = await createOnce<{ webhook: WebhookDoc; secret: string | null }>(
      id,
      async (existing) => {
        const webhook = await this.deps.webhooks.findInAccount(principal.accountId, existing);
        return webhook ? { webhook, secret: null } : null;
      },
      () => this.deps.quotas.withSlot(principal, 'webhooks', webhookId, () => this.#insert(principal, input, webhookId)),
    );
    return doc;
  }

  async #insert(principal: Principal, input: CreateWebhookBody, id: string): Promise<{ webhook: WebhookDoc; secret: string }> {
    const now = new Date();
    const secret = newWebhookSecret();
    const webhook: WebhookDoc = {
      _id: id,
      account_id: principal.accountId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      status: input.status ?? 'enabled',
      secrets: [this.#seal(id, secret, now)],
      created_at: now,
      updated_at: now };
    await this.deps.webhooks.insert(webhook);
    await this.deps.eventLog.record('webhook.created', principal, webhook, eventData(webhook), now);
    return { webhook, secret };
  }

  /** Changes url (checked again when it changes), events, description or status. */
  async update(principal: Principal, id: string, input: UpdateWebhookBody): Promise<WebhookDoc> {
    authorize(principal, 'update', 'webhook');
    const current = await this.get(principal, id);
    if (input.url !== undefined && input.url !== current.url) await this.#assertTarget(input.url);
    const set: Partial<WebhookDoc> = { updated_at: new Date() };
    if (input.url !== undefined) set.url = input.url;
    if (input.events !== undefined) set.events = [...new Set(input.events)];
    if (input.description !== undefined) set.description = input.description;
    if (input.status !== undefined) set.status = input.status;
    const updated = await this.deps.webhooks.update(principal.accountId, id, set);
    if (!updated) throw notFound('webhook');
    // A new address or a re-enabled endpoint is tried at once, not after a pause earned by the old one.
    if (set.url !== undefined || set.status !== undefined) await this.deps.webhookCircuits.reset(id);
    const changes = Object.keys(input);
    await this.deps.eventLog.record('webhook.updated', principal, updated, { ...eventData(updated), changes });
    return updated;
  }

  /** Removes the endpoint, its delivery log and its pending deliveries. */
  async delete(principal: Principal, id: string): Promise<WebhookDoc> {
    authorize(principal, 'delete', 'webhook');
    const webhook = await this.deps.webhooks.delete(principal.accountId, id);
    if (!webhook) throw notFound('webhook');
    await this.deps.quotas.release('webhooks', webhook._id);
    await this.deps.webhookQueue.removeForWebhook(webhook._id);
    await this.deps.webhookCircuits.reset(webhook._id);
    await this.deps.webhookDeliveries.deleteForWebhook(webhook._id);
    await this.deps.eventLog.record('webhook.deleted', principal, webhook, eventData(webhook));
    return webhook;
  }

  /**
   * A new signing secret, returned this once. The previous current secret keeps signing beside it for
   * 24 h (two `v1=` signatures) so receivers can roll over; older ones stop at once.
   */
  async rotateSecret(principal: Principal, id: string): Promise<{ webhook: WebhookDoc; secret: string }> {
    authorize(principal, 'rotate_secret', 'webhook');
    const current = await this.get(principal, id);
    const now = new Date();
    const secret = newWebhookSecret();
    const previous = current.secrets.find((s) => s.expires_at === null);
    const secrets = [this.#seal(id, secret, now), ...(previous ? [{ ...previous, expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS) }] : [])];
    const webhook = await this.deps.webhooks.update(principal.accountId, id, { secrets, updated_at: now });
    if (!webhook) throw notFound('webhook');
    await this.deps.eventLog.record('webhook.secret_rotated', principal, webhook, eventData(webhook), now);
    return { webhook, secret };
  }

  /** Sends a `webhook.ping` event to the endpoint, whatever it subscribes to (not recorded in the audit log). */
  async ping(principal: Principal, id: string): Promise<WebhookDeliveryDoc> {
    authorize(principal, 'ping', 'webhook');
    const webhook = await this.get(principal, id);
    if (webhook.status !== 'enabled') throw conflict('The webhook is disabled; enable it first.');
    const now = new Date();
    const event = presentEvent({
      _id: newId('event', now.getTime()),
      account_id: webhook.account_id,
      type: 'webhook.ping',
      actor: actorOf(principal),
      project_id: null,
      data: { webhook_id: webhook._id },
      created_at: now });
    return await this.deps.fanOut.enqueue(webhook, event, JSON.stringify(event), now);
  }

  async listDeliveries(principal: Principal, webhookId: string, page: PageRequest): Promise<PageResult<WebhookDeliveryDoc>> {
    authorize(principal, 'read', 'webhook');
    await this.get(principal, webhookId);
    return await this.deps.webhookDeliveries.page(principal.accountId, webhookId, page);
  }

  /**
   * Sends a delivery again, same id and body, with a fresh retry window. A delivery still pending is
   * already being retried (409 `conflict`), as is one to a disabled endpoint.
   */
  async redeliver(principal: Principal, webhookId: string, deliveryId: string): Promise<WebhookDeliveryDoc> {
    authorize(principal, 'redeliver', 'webhook');
    const webhook = await this.get(principal, webhookId);
    const delivery = await this.deps.webhookDeliveries.findForWebhook(principal.accountId, webhookId, deliveryId);
    if (!delivery) throw notFound('delivery');
    if (webhook.status !== 'enabled') throw conflict('The webhook is disabled; enable it first.');
    if (delivery.status === 'pending') throw conflict('The delivery is still pending; it will be retried.');
    const now = new Date();
    // Marked pending before it is queued, so the dispatcher's result can never be overwritten by this.
    await this.deps.webhookDeliveries.recordAttempt(delivery._id, null, { status: 'pending', next_attempt_at: now });
    // The lease ids of earlier rounds are `${id}#1…n`; a redelivery starts its own range.
    const queued = await this.deps.webhookQueue.insert({ _id: delivery._id, webhook_id: webhookId, due_at: now, seq: now.getTime(), window_started_at: now });
    if (!queued) throw conflict('The delivery is already queued.');
    return { ...delivery, status: 'pending', next_attempt_at: now, updated_at: now };
  }

  #seal(webhookId: string, secret: string, now: Date): WebhookSecret {
    return { sealed: this.deps.secretBox.seal(secret, secretAad(webhookId)), created_at: now, expires_at: null };
  }

  /** Resolves and checks the URL (SSRF); a refusal is 422 on `url`. */
  async #assertTarget(url: string): Promise<void> {
    try {
      const policy: TargetPolicy = { allowLoopback: this.deps.config.webhookAllowLoopback };
      await checkTarget(url, policy);
    } catch (err) {
      if (err instanceof TargetRefused) throw validationFailed([{ field: 'url', message: err.message }]);
      throw err;
    }
  }
}
