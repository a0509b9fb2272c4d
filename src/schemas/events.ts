import { z } from 'zod';
import { ACTOR_TYPES } from './actor.ts';
import { pageOf, PageQuery } from './page.ts';
import { EVENT_TYPES } from '../domain/eventTypes.ts';
import { ProjectId, Timestamp } from './projects.ts';

export const EventType = z.enum(EVENT_TYPES).meta({ description: 'What happened.', example: 'deployment.status_changed' });

export const ListEventsQuery = PageQuery.extend({
  type: EventType.optional(),
  project_id: ProjectId.optional().meta({ description: 'Only events about this project.' }),
});
export type ListEventsQuery = z.output<typeof ListEventsQuery>;

export const Event = z
  .object({
    id: z.string().meta({ description: 'Event id, time-sortable.', example: 'evt_01jd8z9r3t5v7x9z1b3d5f7h9k' }),
    type: z.string().meta({ description: 'One of the types listed for the `type` filter; new types may be added.', example: 'deployment.status_changed' }),
    actor: z
      .object({ type: z.enum(ACTOR_TYPES), id: z.string() })
      .meta({ description: 'Who made the change: a user, an API key, an OAuth client, a CI token exchanged through a trust policy (`federated`), or the admin CLI (`system`).', example: { type: 'api_key', id: 'key_01jd8z4c8p6r0t2v4x6z8b0d2f' } }),
    project_id: ProjectId.nullable(),
    data: z.record(z.string(), z.unknown()).meta({
      description: 'What changed: ids, names, old and new states. Never a secret value.',
      example: { deployment_id: 'dep_01jd8x7p2c4e6g8j0k2m4n6q8s', environment: 'production', from: 'deploying', to: 'succeeded' },
    }),
    created_at: Timestamp,
  })
  .meta({ id: 'Event' });
export type Event = z.output<typeof Event>;

export const EventList = pageOf(Event, 'EventList');
