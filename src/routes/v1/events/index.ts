import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { presentEvent } from '../../../presenters/events.ts';
import type { V1Deps } from '../deps.ts';
import { EventList, ListEventsQuery } from '../../../schemas/events.ts';

/** The audit log (docs/product.md §7): admin, never an API key (a key acts as one project, not the account). */
export function registerEventRoutes(api: ApiRouter, { authenticate, services, config }: V1Deps): void {
  api.get(
    '/events',
    {
      operationId: 'listEvents',
      summary: 'List events (the audit log)',
      description: 'Every change in the account, newest first: projects, deployments, configurations, API keys, users, OAuth clients. Filter by `type` and `project_id`.',
      tags: ['Events'],
      success: { status: 200, description: 'A page of events.', schema: EventList },
    },
    authenticate,
    authorizeFor('list', 'event'),
    requireScope('admin'),
    validate({ query: ListEventsQuery }),
    async (ctx: ApiContext<{ query: ListEventsQuery }>) => {
      const { page, per_page, type, project_id } = ctx.input.query;
      const filter = { ...(type ? { type } : {}), ...(project_id ? { project_id } : {}) };
      const { items, total } = await services.events.list(ctx.state.principal, filter, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentEvent), total, { page, per_page });
    },
  );
}
