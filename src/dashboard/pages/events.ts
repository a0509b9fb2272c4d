import { ListEventsQuery } from '../../schemas/events.ts';
import { sendPage, type DashboardDeps } from '../context.ts';
import { parseQuery, queryValue } from '../forms.ts';
import type { PageRouter } from '../pageRouter.ts';
import { eventsView } from '../views/events.ts';

const PER_PAGE = 25;

/**
 * Events: the account's audit log, from the same service and with the same rules as `GET /v1/events`
 * (admin scope; filters checked by the route's own query schema). Filter by type and project.
 */
export function registerEventsPage(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { events, projects } = deps.services;

  pages.get('/events', 'admin', async (ctx, { principal }) => {
    const values = { type: queryValue(ctx.query.type), project_id: queryValue(ctx.query.project_id) };
    const { query, errors } = parseQuery(
      ListEventsQuery,
      { ...values, page: queryValue(ctx.query.page) || '1', per_page: String(PER_PAGE) },
      { messages: { type: 'Choose a type from the list.', project_id: 'Enter a project id (proj_…).' }, rename: { page: 'type', per_page: 'type' } },
    );
    const filter = { ...(query?.type ? { type: query.type } : {}), ...(query?.project_id ? { project_id: query.project_id } : {}) };
    const result = query ? await events.list(principal, filter, { page: query.page, per_page: PER_PAGE }) : { items: [], total: 0 };
    const choices = (await projects.list(principal, { page: 1, per_page: 100 })).items;
    sendPage(ctx, config, {
      title: 'Events',
      status: query ? 200 : 422,
      body: eventsView({ filter: { values, errors }, projects: choices, ...result, page: query?.page, perPage: PER_PAGE }),
    });
  });
}
