import type { Actor, Principal } from '../domain/principal.ts';
import type { EventType } from '../domain/eventTypes.ts';
import { newId } from '../lib/ids.ts';
import { presentEvent } from '../presenters/events.ts';
import type { EventDoc } from '../repositories/events.ts';
import type { Repositories } from '../repositories/index.ts';
import type { WebhookFanOut } from './webhookFanOut.ts';
import { Service } from './service.ts';

export function actorOf(principal: Pick<Principal, 'kind' | 'id'>): Actor {
  return { type: principal.kind, id: principal.id };
}

/**
 * Stored field names may contain neither dots nor a leading `$` (FerretDB refuses them, MongoDB
 * discourages them), so such keys are rewritten rather than failing the change being recorded.
 */
function sanitize(value: unknown, depth = 0): unknown {
  if (depth > 8) return null;
  if (Array.isArray(value)) return value.map((v) => sanitize(v, depth + 1));
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[k.replace(/\./g, '_').replace(/^\$/, '_')] = sanitize(v, depth + 1);
  }
  return out;
}

/** Where a change happened: its account, and its project when it belongs to one (a record inside a project passes itself). */
export interface EventScope {
  account_id: string;
  project_id?: string | null;
}

/** Who made the change: the acting principal, or an actor named outright (the webhook dispatcher, a setup link's user). */
export type EventAuthor = Pick<Principal, 'kind' | 'id'> | Actor;

export interface EventLogDeps {
  events: Repositories['events'];
  /** Every recorded event goes to the account's endpoints that subscribe to its type. */
  fanOut: WebhookFanOut;
}

/**
 * The audit log, as the services append to it (docs/product.md §7): built once by createServices and
 * given to every service that records its changes. Reading it is EventService's (src/services/events.ts).
 */
export class EventLog extends Service<EventLogDeps> {
  /**
   * Appends `type` to the audit log, then queues a webhook delivery for each endpoint of the account
   * that subscribes to it. Called after the change succeeded; without transactions a crash between the
   * two loses the event, never invents one. `data` names and ids what changed: never secret values
   * (callers pass only non-secret fields).
   */
  async record(type: EventType, by: EventAuthor, scope: EventScope, data: Record<string, unknown> = {}, at = new Date()): Promise<EventDoc> {
    const actor = 'kind' in by ? actorOf(by) : { type: by.type, id: by.id };
    const doc: EventDoc = {
      _id: newId('event', at.getTime()),
      account_id: scope.account_id,
      type,
      actor,
      project_id: scope.project_id ?? null,
      data: sanitize(data) as Record<string, unknown>,
      created_at: at,
    };
    await this.deps.events.insert(doc);
    await this.deps.fanOut.forEvent(doc.account_id, { id: doc._id, type: doc.type }, JSON.stringify(presentEvent(doc)));
    return doc;
  }
}
