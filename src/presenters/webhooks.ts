import type { WebhookDeliveryDoc } from '../repositories/webhookDeliveries.ts';
import type { WebhookDoc } from '../repositories/webhooks.ts';
import type { Delivery, Webhook } from '../schemas/webhooks.ts';

/** The API object of an endpoint: never its secrets. */
export function presentWebhook(doc: WebhookDoc): Webhook {
  return {
    id: doc._id,
    url: doc.url,
    events: doc.events as Webhook['events'],
    description: doc.description,
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

/** A delivery log entry: the attempts, without the payload (it is the event, in `GET /v1/events`). */
export function presentDelivery(doc: WebhookDeliveryDoc): Delivery {
  return {
    id: doc._id,
    webhook_id: doc.webhook_id,
    event_id: doc.event_id,
    event_type: doc.event_type,
    status: doc.status,
    attempt_count: doc.attempts.length,
    attempts: doc.attempts.map((a, i) => ({ attempt: i + 1, at: a.at.toISOString(), status_code: a.status_code, duration_ms: a.duration_ms, error: a.error })),
    next_attempt_at: doc.next_attempt_at ? doc.next_attempt_at.toISOString() : null,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}
