import { z } from 'zod';
import { actorRef } from './actor.ts';
import { pageOf, PageQuery } from './page.ts';
import { atLeastOneField, documentedPattern, HTTP_URL_PATTERN, trimmedText } from './rules.ts';
import { DELIVERY_STATUSES } from '../repositories/webhookDeliveries.ts';
import { WEBHOOK_STATUSES } from '../repositories/webhooks.ts';
import { EVENT_TYPES } from '../domain/eventTypes.ts';
import { Timestamp } from './projects.ts';

export const MAX_URL_LENGTH = 2048;

/** What is wrong with the URL as written (no DNS); undefined when nothing. */
export function webhookUrlProblem(value: string): string | undefined {
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash || value.includes('#')) return 'must not contain a fragment';
  if (!url.hostname) return 'must have a host';
  return undefined;
}

const ID_BODY = '[0-9a-hjkmnp-tv-z]{26}';

export const WebhookId = z
  .string()
  .regex(new RegExp(`^whk_${ID_BODY}$`))
  .meta({ description: 'Webhook id.', example: 'whk_01jd8x3k9q7m2v4t6r8w0y1z3b' });
export const DeliveryId = z
  .string()
  .regex(new RegExp(`^dlv_${ID_BODY}$`))
  .meta({ description: 'Delivery id: the `Slipway-Delivery` header, the same on every retry and redelivery.', example: 'dlv_01jd8x4m2c7p9r1t3v5x7z9b1d' });

export const WebhookParams = z.object({ webhook_id: WebhookId });
export type WebhookParams = z.output<typeof WebhookParams>;
export const DeliveryParams = z.object({ webhook_id: WebhookId, delivery_id: DeliveryId });
export type DeliveryParams = z.output<typeof DeliveryParams>;

const WebhookUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .regex(HTTP_URL_PATTERN, 'must be an absolute http(s) URL without user name or password')
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'Where deliveries are POSTed. `https` only (plain `http` only to loopback, when the deployment allows it for development). The host must resolve to public addresses only: private, loopback, link-local, CGNAT, multicast and metadata addresses are refused (422), at registration and before every delivery.',
    example: 'https://ci.example.com/hooks/slipway',
    maxLength: MAX_URL_LENGTH,
    ...documentedPattern(HTTP_URL_PATTERN),
  });

export const WebhookEventType = z.enum(['*', ...EVENT_TYPES]).meta({ description: 'An event type, or `*` for every type.' });
const Events = z
  .array(WebhookEventType)
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .meta({ description: 'The event types delivered.', example: ['deployment.status_changed'] });

const Description = trimmedText(500, { controlCharacters: false, allowEmpty: true })
  .nullable()
  .meta({ description: 'Free text: trimmed, then at most 500 characters, with no control characters (line breaks and tabs included).', example: 'Release notifications' });

export const WebhookStatus = z.enum(WEBHOOK_STATUSES).meta({
  description: '`enabled` endpoints receive deliveries; an endpoint failing for 24 h is `disabled` by Slipway (a `webhook.disabled` event records it).',
});

export const CreateWebhookBody = z
  .object({ url: WebhookUrl, events: Events, description: Description.optional(), status: WebhookStatus.optional() })
  .strict()
  .meta({ id: 'CreateWebhook' });
export type CreateWebhookBody = z.output<typeof CreateWebhookBody>;

export const UpdateWebhookBody = atLeastOneField(
  z.object({ url: WebhookUrl.optional(), events: Events.optional(), description: Description.optional(), status: WebhookStatus.optional() }).strict(),
).meta({ id: 'UpdateWebhook' });
export type UpdateWebhookBody = z.output<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = PageQuery;
export type ListWebhooksQuery = z.output<typeof ListWebhooksQuery>;

export const Webhook = z
  .object({
    id: WebhookId,
    url: z.string(),
    events: z.array(WebhookEventType),
    description: z.string().nullable(),
    status: WebhookStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.output<typeof Webhook>;

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().nullable().meta({
    description:
      'The signing secret (`whsec_…`), shown in this response only (Slipway keeps it encrypted). `null` in an `Idempotency-Key` replay. Deliveries carry `Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with this whole string>`.',
    example: 'whsec_Vb1q3ZrT7yNw0cXe5LmA9sDf2GhJ4kP6oQ8uRtY1zIw',
  }),
}).meta({ id: 'WebhookWithSecret' });

export const WebhookList = pageOf(Webhook, 'WebhookList');

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().min(1),
    at: Timestamp,
    status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when it did not answer (timeout, connection or address refused)." }),
    duration_ms: z.number().int().min(0),
    error: z.string().nullable().meta({ example: 'timed out after 10000 ms' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

export const Delivery = z
  .object({
    id: DeliveryId,
    webhook_id: WebhookId,
    event_id: z.string().meta({ example: 'evt_01jd8x4m2c7p9r1t3v5x7z9b1d' }),
    event_type: z.string().meta({ example: 'deployment.status_changed' }),
    status: z.enum(DELIVERY_STATUSES).meta({ description: '`pending` while attempts remain, `succeeded` on a 2xx, `failed` when retries ran out.' }),
    attempt_count: z.number().int().min(0),
    attempts: z.array(DeliveryAttempt),
    next_attempt_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.output<typeof Delivery>;

export const DeliveryList = pageOf(Delivery, 'WebhookDeliveryList');

/** What a receiver gets: the event object, as `GET /v1/events` shows it. */
export const WebhookPayload = z
  .object({
    id: z.string().meta({ example: 'evt_01jd8x4m2c7p9r1t3v5x7z9b1d' }),
    type: z.string().meta({ description: 'An event type, or `webhook.ping` for a ping.', example: 'deployment.status_changed' }),
    actor: actorRef(),
    project_id: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).meta({ description: 'What changed; never secret values.' }),
    created_at: Timestamp,
  })
  .meta({ id: 'WebhookPayload' });
