import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Actor, Principal } from '../domain/principal.ts';
import { authorize, confinement } from '../domain/policy.ts';
import type { EventType } from '../domain/eventTypes.ts';
import { newId } from '../lib/ids.ts';
import { presentEvent } from '../presenters/events.ts';
import type { EventDoc, EventFilter, EventRepository } from '../repositories/events.ts';
import { enqueueForEvent, type WebhookQueueDeps } from './webhookFanOut.ts';

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

/** What recording a change touches: the audit log, and the webhook queue its deliveries go to. */
export type EventLogDeps = { events: EventRepository } & WebhookQueueDeps;

export interface RecordEventInput {
  accountId: string;
  type: EventType;
  actor: Actor;
  projectId?: string | null;
  /** Names and ids of what changed: never secret values (callers pass only non-secret fields). */
  data?: Record<string, unknown>;
  at?: Date;
}

/**
 * Appends to the audit log, then queues a webhook delivery for each endpoint of the account that
 * subscribes to the type. Called after the change succeeded; without transactions a crash between the
 * two loses the event, never invents one. The services call it as part of their changes (it is not
 * offered to routes, pages or the CLI).
 */
export async function recordEvent(repos: EventLogDeps, input: RecordEventInput): Promise<EventDoc> {
  const at = input.at ?? new Date();
  const doc: EventDoc = {
    _id: newId('evt', at.getTime()),
    account_id: input.accountId,
    type: input.type,
    actor: { type: input.actor.type, id: input.actor.id },
    project_id: input.projectId ?? null,
    data: sanitize(input.data ?? {}) as Record<string, unknown>,
    created_at: at,
  };
  await repos.events.insert(doc);
  await enqueueForEvent(repos, doc.account_id, { id: doc._id, type: doc.type }, JSON.stringify(presentEvent(doc)));
  return doc;
}

/**
 * The audit log as callers read it (/v1/events, the dashboard's Events page, a project's Activity tab, a
 * deployment's history). Entries are appended by the services themselves with `recordEvent`, never
 * through this class.
 */
export class EventService {
  readonly #events: EventRepository;

  constructor(repos: { events: EventRepository }) {
    this.#events = repos.events;
  }

  /**
   * The principal's account's log, newest first, optionally by type, project and deployment. A project
   * filter only narrows it: another account's project, or one that does not exist, has no events here.
   * An API key sees its own project's events only.
   */
  async list(principal: Principal, filter: EventFilter, page: PageRequest): Promise<PageResult<EventDoc>> {
    // The account's log, or for a principal confined to one project (an API key), that project's events.
    const { projectId } = confinement(principal);
    authorize(principal, projectId ? 'list_project' : 'list', 'event');
    const scoped = projectId ? { ...filter, project_id: projectId } : filter;
    const result = await this.#events.page(principal.accountId, scoped, page);
    return filter.project_id !== undefined && filter.project_id !== scoped.project_id ? { items: [], total: 0 } : result;
  }
}
