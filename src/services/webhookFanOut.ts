import { newId } from '../lib/ids.ts';
import type { Repositories } from '../repositories/index.ts';
import type { WebhookDeliveryDoc } from '../repositories/webhookDeliveries.ts';
import type { WebhookDoc } from '../repositories/webhooks.ts';
import { Service } from './service.ts';

export function subscribes(webhook: Pick<WebhookDoc, 'events'>, type: string): boolean {
  return webhook.events.includes('*') || webhook.events.includes(type);
}

/** What queuing deliveries needs: the endpoints, the delivery log and the pending set. */
export type WebhookFanOutDeps = Pick<Repositories, 'webhooks' | 'webhookDeliveries' | 'webhookQueue'>;

/**
 * Puts deliveries on the webhook queue (docs/product.md §7), for the event log (every endpoint that
 * subscribes to an event) and for a ping. The WebhookDispatcher makes the attempts.
 */
export class WebhookFanOut extends Service<WebhookFanOutDeps> {
  /**
   * A delivery of one event to one endpoint, logged and then queued for its first attempt. Logged first:
   * a crash between the two leaves a pending entry in the log, never an attempt nobody can see.
   */
  async enqueue(webhook: Pick<WebhookDoc, '_id' | 'account_id'>, event: { id: string; type: string }, payload: string, now = new Date()): Promise<WebhookDeliveryDoc> {
    const delivery: WebhookDeliveryDoc = {
      _id: newId('delivery', now.getTime()),
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
    await this.deps.webhookDeliveries.insert(delivery);
    await this.deps.webhookQueue.insert({ _id: delivery._id, webhook_id: webhook._id, due_at: now, seq: 1, window_started_at: now });
    return delivery;
  }

  /** Queues the event for every enabled endpoint of its account that subscribes to its type. */
  async forEvent(accountId: string, event: { id: string; type: string }, payload: string): Promise<number> {
    let queued = 0;
    for (const webhook of await this.deps.webhooks.listEnabledCached(accountId)) {
      if (!subscribes(webhook, event.type)) continue;
      await this.enqueue(webhook, event, payload);
      queued++;
    }
    return queued;
  }
}
