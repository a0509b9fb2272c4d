import { EVENT_TYPES } from '../../domain/eventTypes.ts';
import { html, type Html } from '../../lib/html.ts';
import type { EventDoc } from '../../services/events.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { selectField, type FormState } from '../forms.ts';
import { dateTime, pagination } from '../layout.ts';

export const EVENTS_PATH = '/dashboard/events';

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

export interface EventsView {
  /** The filters as sent, and what was wrong with them. */
  filter: FormState & { values: { type: string; project_id: string } };
  projects: ProjectDoc[];
  items: EventDoc[];
  total: number;
  /** Absent when the filters are not valid. */
  page: number | undefined;
  perPage: number;
}

function eventFilterForm(v: EventsView): Html {
  const { type, project_id } = v.filter.values;
  return html`<form method="get" action="${EVENTS_PATH}" class="filters" role="search" aria-label="Filter events">
${selectField({ form: 'events', name: 'type', label: 'Type', state: v.filter, options: [{ value: '', label: 'Any' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))] })}
${selectField({
  form: 'events',
  name: 'project_id',
  label: 'Project',
  state: v.filter,
  options: [
    { value: '', label: 'Any' },
    ...v.projects.map((p) => ({ value: p._id, label: p.name })),
    ...(project_id && !v.projects.some((p) => p._id === project_id) ? [{ value: project_id, label: project_id }] : []),
  ],
})}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${type || project_id ? html`<a href="${EVENTS_PATH}">Clear</a>` : ''}</div>
</form>`;
}

/** Events: the account's audit log with its filters. */
export function eventsView(v: EventsView): Html {
  const { type, project_id } = v.filter.values;
  const href = (n: number) => `${EVENTS_PATH}?${new URLSearchParams({ ...(type ? { type } : {}), ...(project_id ? { project_id } : {}), page: String(n) })}`;
  const empty = v.page !== undefined ? (type || project_id ? 'No events match these filters.' : 'No events yet.') : 'Correct the filter to see events.';
  return html`<h1>Events</h1>
<p class="muted">Every change in your account, newest first: the audit log that <code>GET /v1/events</code> also serves.</p>
<section class="panel" aria-labelledby="events-title">
<h2 id="events-title" class="visually-hidden">Audit log</h2>
${eventFilterForm(v)}
${v.items.length ? eventTable(v.items, { project: true, projectNames: new Map(v.projects.map((p) => [p._id, p.name])) }) : html`<p class="empty">${empty}</p>`}
${v.page !== undefined ? pagination(v.page, v.perPage, v.total, href) : ''}
</section>`;
}
