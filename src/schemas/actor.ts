import { z } from 'zod';
import type { Principal } from '../domain/principal.ts';

/** Every kind of credential that can act, as the API names it (who created, locked, did). */
export const ACTOR_TYPES = ['user', 'api_key', 'client', 'system', 'federated'] as const satisfies readonly Principal['kind'][];

/** Who acted: `{type, id}` (inline in each schema that shows it). */
export const actorRef = () => z.object({ type: z.enum(ACTOR_TYPES), id: z.string() });
