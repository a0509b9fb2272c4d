import type { EventDoc } from '../repositories/events.ts';
import type { Event } from '../schemas/events.ts';

/** The API object of an audit log entry, as `GET /v1/events` lists it and a webhook delivery carries it. */
export function presentEvent(doc: EventDoc): Event {
  return {
    id: doc._id,
    type: doc.type,
    actor: { type: doc.actor.type, id: doc.actor.id },
    project_id: doc.project_id,
    data: doc.data,
    created_at: doc.created_at.toISOString(),
  };
}
