import type Router from '@koa/router';
import { assertScope } from '../../http/requireScope.ts';
import type { EventDoc } from '../../repositories/events.ts';
import { ListEventsQuery } from '../../schemas/events.ts';
import { EVENT_TYPES } from '../../domain/eventTypes.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { queryValue, selectField, type FormState } from '../forms.ts';
import { html, type Html } from '../../lib/html.ts';
import { dateTime, pagination } from '../layout.ts';

const EVENTS_PATH = '/dashboard/events';
const PER_PAGE = 25;

/** A stored value as short text: strings as they are, anything else as JSON. */
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** An event's data as `name: value` pairs; a deployment id links to that deployment's page. */
function eventData(doc: EventDoc): Html {
  const entries = Object.entries(doc.data ?? {});
  if (!entries.length) return html`<span class="muted">—</span>`;
  return html`<dl class="event-data">${entries.map(([key, value]) => {
    const text = shown(value);
    const link = key === 'deployment_id' && doc.project_id && typeof value === 'string';
    return html`<div><dt>${key}</dt><dd>${link ? html`<a href="/dashboard/projects/${doc.project_id}/deployments/${text}"><code>${text}</code></a>` : html`<code>${text}</code>`}</dd></div>`;
  })}</dl>`;
}

/** The audit log as a table, newest first (the events page, a project's Activity tab). */
export function eventTable(items: EventDoc[], options: { project: boolean; projectNames?: Map<string, string> }): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">By</th>${options.project ? html`<th scope="col">Project</th>` : ''}<th scope="col">Details</th></tr></thead>
<tbody>
${items.map(
  (e) => html`<tr>
<td data-label="When">${dateTime(e.created_at)}</td>
<td data-label="Event"><code>${e.type}</code></td>
<td data-label="By">${e.actor.type} <code>${e.actor.id}</code></td>
${options.project ? html`<td data-label="Project">${e.project_id ? html`<a href="/dashboard/projects/${e.project_id}">${options.projectNames?.get(e.project_id) ?? html`<code>${e.project_id}</code>`}</a>` : html`<span class="muted">—</span>`}</td>` : ''}
<td data-label="Details">${eventData(e)}</td>
</tr>`,
)}
</tbody></table></div>`;
}

/**
 * Events: the account's audit log, from the same service and with the same rules as `GET /v1/events`
 * (admin scope; filters checked by the route's own query schema). Filter by type and project.
 */
export function registerEventsPage(router: Router, deps: DashboardDeps): void {
  const { config } = deps;

  router.get('/events', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'admin');
    const raw = { type: queryValue(ctx.query.type), project_id: queryValue(ctx.query.project_id), page: queryValue(ctx.query.page) || '1' };
    const parsed = ListEventsQuery.safeParse({ ...(raw.type ? { type: raw.type } : {}), ...(raw.project_id ? { project_id: raw.project_id } : {}), page: raw.page, per_page: String(PER_PAGE) });
    const errors: Record<string, string> = {};
    if (!parsed.success)
      for (const issue of parsed.error.issues) {
        const field = String(issue.path[0] ?? 'type');
        errors[field === 'page' ? 'type' : field] ??= field === 'project_id' ? 'Enter a project id (proj_…).' : 'Choose a type from the list.';
      }
    const query = parsed.success ? parsed.data : undefined;
    const filter = query ? { ...(query.type ? { type: query.type } : {}), ...(query.project_id ? { project_id: query.project_id } : {}) } : {};
    const result = query ? await deps.services.events.list(state.principal, filter, { page: query.page, per_page: PER_PAGE }) : { items: [], total: 0 };
    const projects = (await deps.services.projects.list(state.principal, { page: 1, per_page: 100 })).items;
    const form: FormState = { values: { type: raw.type, project_id: raw.project_id }, errors };
    const href = (n: number) => `${EVENTS_PATH}?${new URLSearchParams({ ...(raw.type ? { type: raw.type } : {}), ...(raw.project_id ? { project_id: raw.project_id } : {}), page: String(n) })}`;

    sendPage(ctx, config, {
      title: 'Events',
      active: 'events',
      status: parsed.success ? 200 : 422,
      body: html`<h1>Events</h1>
<p class="muted">Every change in your account, newest first: the audit log that <code>GET /v1/events</code> also serves.</p>
<section class="panel" aria-labelledby="events-title">
<h2 id="events-title" class="visually-hidden">Audit log</h2>
<form method="get" action="${EVENTS_PATH}" class="filters" role="search" aria-label="Filter events">
${selectField({ form: 'events', name: 'type', label: 'Type', state: form, options: [{ value: '', label: 'Any' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))] })}
${selectField({
  form: 'events',
  name: 'project_id',
  label: 'Project',
  state: form,
  options: [
    { value: '', label: 'Any' },
    ...projects.map((p) => ({ value: p._id, label: p.name })),
    ...(raw.project_id && !projects.some((p) => p._id === raw.project_id) ? [{ value: raw.project_id, label: raw.project_id }] : []),
  ],
})}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${raw.type || raw.project_id ? html`<a href="${EVENTS_PATH}">Clear</a>` : ''}</div>
</form>
${
  result.items.length
    ? eventTable(result.items, { project: true, projectNames: new Map(projects.map((p) => [p._id, p.name])) })
    : html`<p class="empty">${query ? (raw.type || raw.project_id ? 'No events match these filters.' : 'No events yet.') : 'Correct the filter to see events.'}</p>`
}
${query ? pagination(query.page, PER_PAGE, result.total, href) : ''}
</section>`,
    });
  });
}
