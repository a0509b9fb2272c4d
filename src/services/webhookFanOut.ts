import { newId } from '../lib/ids.ts';
import type { WebhookDeliveryDoc, WebhookDeliveryRepository } from '../repositories/webhookDeliveries.ts';
import type { WebhookQueueRepository } from '../repositories/webhookQueue.ts';
import type { WebhookDoc, WebhookRepository } from '../repositories/webhooks.ts';

/** What enqueuing a delivery needs: the endpoints, the delivery log and the pending set. */
export interface WebhookQueueDeps {
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  webhookQueue: WebhookQueueRepository;
}

export function subscribes(webhook: Pick<WebhookDoc, 'events'>, type: string): boolean {
  return webhook.events.includes('*') || webhook.events.includes(type);
}

/**
 * A delivery of one event to one endpoint, logged and then queued for its first attempt. Logged first:
 * a crash between the two leaves a pending entry in the log, never an attempt nobody can see.
 */
export async function enqueueDelivery(
  deps: WebhookQueueDeps,
  webhook: Pick<WebhookDoc, '_id' | 'account_id'>,
  event: { id: string; type: string },
  payload: string,
  now = new Date(),
): Promise<WebhookDeliveryDoc> {
  const delivery: WebhookDeliveryDoc = {
    _id: newId('dlv', now.getTime()),
    account_id: webhook.account_id,
    webhook_id: webhook._id,
    event_id: event.id,
    event_type: event.type,
    payload,
    status: 'pending',
    attempts: [],
    next_attempt_at: now,
    succeeded_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.webhookDeliveries.insert(delivery);
  await deps.webhookQueue.insert({ _id: delivery._id, webhook_id: webhook._id, due_at: now, seq: 1, window_started_at: now });
  return delivery;
}

/** Queues the event for every enabled endpoint of its account that subscribes to its type. */
export async function enqueueForEvent(deps: WebhookQueueDeps, accountId: string, event: { id: string; type: string }, payload: string): Promise<number> {
  let queued = 0;
  for (const webhook of await deps.webhooks.listEnabledCached(accountId)) {
    if (!subscribes(webhook, event.type)) continue;
    await enqueueDelivery(deps, webhook, event, payload);
    queued++;
  }
  return queued;
}
