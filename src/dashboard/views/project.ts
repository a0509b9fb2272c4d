import { DEPLOYMENT_STATUSES, canMoveDeployment } from '../../domain/deployments.ts';
import type { DeploymentActivity, Outcome } from '../../domain/deploymentActivity.ts';
import { html, type Html } from '../../lib/html.ts';
import { presentApiKey } from '../../presenters/apiKeys.ts';
import { presentConfiguration } from '../../presenters/configurations.ts';
import type { ApiKeyDoc } from '../../services/apiKeys.ts';
import type { ReadConfiguration } from '../../services/configurations.ts';
import type { DeploymentDoc } from '../../services/deployments.ts';
import type { EventDoc } from '../../services/events.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { duration, stackedBars } from '../charts.ts';
import { choiceGroup, formProblem, selectField, textArea, textField, type FieldErrors, type FormState } from '../forms.ts';
import { csrfField, dateTime, pagination, statusBadge } from '../layout.ts';
import { eventTable } from './events.ts';
import { actorName, ago, livePanel, took, type LiveEnvironment, type ReleaseContext } from './release.ts';
import { STATUS_ACTIONS } from './projects.ts';

/** The project page's sections, each its own URL (links, so they work without scripts). */
export type ProjectTab = 'deployments' | 'environments' | 'configuration' | 'api-keys' | 'activity';

export const PER_PAGE = 20;
export const ACTIVITY_DAYS = 30;

/** Who looks at the project, and what they may do (which controls are shown). */
export interface ProjectViewer {
  project: ProjectDoc;
  csrf: string;
  canWrite: boolean;
  isAdmin: boolean;
}

interface Paged<T> {
  items: T[];
  total: number;
  page: number;
}

const basePath = (project: ProjectDoc) => `/dashboard/projects/${project._id}`;

const OUTCOME_SERIES = [
  { key: 'succeeded', label: 'Succeeded' },
  { key: 'failed', label: 'Failed' },
  { key: 'canceled', label: 'Canceled' },
  { key: 'in_progress', label: 'In progress' },
] as const satisfies readonly { key: Outcome; label: string }[];

const dayLabel = (date: string, options: Intl.DateTimeFormatOptions) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', ...options });

/** The last 30 days of the project's deployments by outcome, and how long success takes (median). */
function activityPanel(activity: DeploymentActivity): Html {
  const median = activity.medianSecondsToSucceed;
  const summary =
    `${activity.total} deployment${activity.total === 1 ? '' : 's'} in the last ${ACTIVITY_DAYS} days: ` +
    OUTCOME_SERIES.map((s) => `${activity.days.reduce((n, d) => n + d[s.key], 0)} ${s.label.toLowerCase()}`).join(', ') +
    (median === null ? '.' : `; median time to succeed ${duration(median)}.`);
  return html`<section class="panel" id="activity-chart" aria-labelledby="activity-chart-title" data-live-region="chart">
<h2 id="activity-chart-title">Last ${ACTIVITY_DAYS} days</h2>
<p class="chart-stat">Median time to succeed: <strong data-stat="median-seconds" data-value="${median ?? ''}">${median === null ? 'no successful deployment yet' : duration(median)}</strong></p>
${stackedBars({
  id: 'deployments-per-day',
  title: `Deployments per day, last ${ACTIVITY_DAYS} days`,
  summary,
  series: OUTCOME_SERIES,
  barHeading: 'Day (UTC)',
  bars: activity.days.map((d) => ({ ...d, label: dayLabel(d.date, { month: 'short', day: 'numeric', year: 'numeric' }), short: dayLabel(d.date, { month: 'short', day: 'numeric' }) })),
})}
</section>`;
}

/** Status buttons (write) and the way to deletion (admin). */
function projectActions(v: ProjectViewer): Html {
  if (!v.canWrite && !v.isAdmin) return html``;
  const base = basePath(v.project);
  return html`<div class="form-actions spaced">
${
  v.canWrite
    ? html`<form method="post" action="${base}/status" class="inline">
${csrfField(v.csrf)}
${STATUS_ACTIONS[v.project.status].map((a) => html`<button type="submit" class="secondary small" name="status" value="${a.to}">${a.label}</button>`)}
</form>`
    : ''
}
${v.isAdmin ? html`<a href="${base}/delete">Delete project…</a>` : ''}
</div>`;
}

function projectTabs(v: ProjectViewer, tab: ProjectTab): Html {
  const base = basePath(v.project);
  const tabs: { key: ProjectTab; label: string; href: string }[] = [
    { key: 'deployments', label: 'Deployments', href: base },
    { key: 'environments', label: 'Environments', href: `${base}/environments` },
    { key: 'configuration', label: 'Configuration', href: `${base}/configuration` },
    ...(v.isAdmin
      ? [
          { key: 'api-keys' as const, label: 'API keys', href: `${base}/api-keys` },
          { key: 'activity' as const, label: 'Activity', href: `${base}/activity` },
        ]
      : []),
  ];
  return html`<nav class="tabs" aria-label="Project sections"><ul>${tabs.map(
    (t) => html`<li><a href="${t.href}"${t.key === tab ? html` aria-current="page"` : ''}>${t.label}</a></li>`,
  )}</ul></nav>`;
}

/** Above every tab: the project's details, its actions and the tabs. */
export function projectHead(v: ProjectViewer, tab: ProjectTab): Html {
  const { project } = v;
  return html`<p class="crumb"><a href="/dashboard/projects">Projects</a></p>
<div class="page-head"><h1>${project.name}</h1>${statusBadge(project.status)}</div>
<section class="panel" aria-labelledby="details-title">
<h2 id="details-title" class="visually-hidden">Details</h2>
<dl class="props">
<dt>ID</dt><dd><code>${project._id}</code></dd>
<dt>Deploy target</dt><dd>${project.deploy_target ?? html`<span class="muted">Not set</span>`}</dd>
<dt>Created</dt><dd>${dateTime(project.created_at)}</dd>
<dt>Updated</dt><dd>${dateTime(project.updated_at)}</dd>
</dl>
${projectActions(v)}
</section>
${projectTabs(v, tab)}`;
}

/** API keys tab (admins): the project's keys, read-only; managing them is in Settings › API Keys. */
export function apiKeysTab(v: ProjectViewer, keys: Paged<ApiKeyDoc>): Html {
  const base = basePath(v.project);
  return html`<section class="panel" id="api-keys" aria-labelledby="api-keys-title">
<h2 id="api-keys-title">API keys</h2>
${
  keys.items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Last used</th></tr></thead>
<tbody>${keys.items.map((doc) => {
        const k = presentApiKey(doc);
        return html`<tr><td data-label="Name">${k.name}</td><td data-label="Key"><code>${k.prefix}…${k.last_four}</code></td><td data-label="Scopes">${k.scopes.join(', ')}</td><td data-label="Status">${statusBadge(k.status)}</td><td data-label="Last used">${dateTime(doc.last_used_at)}</td></tr>`;
      })}</tbody></table></div>`
    : html`<p class="empty">This project has no API keys yet.</p>`
}
${pagination(keys.page, PER_PAGE, keys.total, (n) => `${base}/api-keys?page=${n}`)}
<p class="spaced"><a href="/dashboard/settings/api-keys?project=${encodeURIComponent(v.project._id)}">Create, rotate or revoke keys in Settings › API Keys</a></p>
</section>`;
}

/** Activity tab (admins): the project's audit log. */
export function activityTab(v: ProjectViewer, events: Paged<EventDoc>): Html {
  const base = basePath(v.project);
  return html`<section class="panel" id="activity" aria-labelledby="activity-title">
<h2 id="activity-title">Activity</h2>
${events.items.length ? eventTable(events.items, { project: false }) : html`<p class="empty">Nothing has happened in this project yet.</p>`}
${pagination(events.page, PER_PAGE, events.total, (n) => `${base}/activity?page=${n}`)}
<p class="spaced"><a href="/dashboard/events?project_id=${encodeURIComponent(v.project._id)}">Open in Events</a></p>
</section>`;
}

/** What the deployments tab shows: the filters as sent (and their errors), a page of deployments. */
export interface DeploymentsTab {
  filter: { environment: string; status: string; errors: FieldErrors };
  deployments: Paged<DeploymentDoc>;
  activity: DeploymentActivity;
  /** The project's environments and what is live in each. */
  live: LiveEnvironment[];
  release: ReleaseContext;
  form?: FormState | undefined;
}

/** The deployments tab's URL with these filters and page (defaults left out). */
function deploymentsHref(base: string, filter: DeploymentsTab['filter'], page: number): string {
  const params = new URLSearchParams();
  if (filter.environment) params.set('environment', filter.environment);
  if (filter.status) params.set('status', filter.status);
  if (page !== 1) params.set('dpage', String(page));
  const qs = params.toString();
  return `${base}${qs ? `?${qs}` : ''}`;
}

function deploymentFilterForm(base: string, filter: DeploymentsTab['filter']): Html {
  const state: FormState = { values: { environment: filter.environment, status: filter.status }, errors: filter.errors };
  return html`<form method="get" action="${base}" class="filters" role="search" aria-label="Filter deployments">
${textField({ form: 'dfilter', name: 'environment', label: 'Environment', state, placeholder: 'any' })}
${selectField({
  form: 'dfilter',
  name: 'status',
  label: 'Status',
  state,
  options: [{ value: '', label: 'Any' }, ...DEPLOYMENT_STATUSES.map((s) => ({ value: s, label: s }))],
})}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${filter.environment || filter.status ? html`<a href="${base}">Clear</a>` : ''}</div>
</form>`;
}

/** A deployment's status select (write scope; none once it is final or the project archived). */
function deploymentStatusCell(v: ProjectViewer, d: DeploymentDoc): Html {
  const next = DEPLOYMENT_STATUSES.filter((s) => canMoveDeployment(d.status, s));
  if (!next.length || v.project.status === 'archived') return html`<td data-label="Change"><span class="muted">—</span></td>`;
  return html`<td data-label="Change"><form method="post" action="${basePath(v.project)}/deployments/${d._id}/status" class="inline">
${csrfField(v.csrf)}
<label for="dstatus-${d._id}" class="visually-hidden">New status for ${d.environment} ${d.branch}</label>
<select id="dstatus-${d._id}" name="status">${next.map((s) => html`<option value="${s}">${s}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Update status of ${d.environment} ${d.branch}">Update</button>
</form></td>`;
}

function deploymentRow(v: ProjectViewer, d: DeploymentDoc, r: ReleaseContext): Html {
  return html`<tr data-deployment="${d._id}">
<td data-label="Environment"><a href="${basePath(v.project)}/deployments/${d._id}" aria-label="Deployment ${d.environment} ${d.branch}">${d.environment}</a></td>
<td data-label="Branch"><code>${d.branch}</code></td>
<td data-label="Commit">${d.commit_sha ? html`<code>${d.commit_sha.slice(0, 12)}</code>` : html`<span class="muted">—</span>`}</td>
<td data-label="Status">${statusBadge(d.status)}${d.status_message ? html` <span class="muted">${d.status_message}</span>` : ''}</td>
<td data-label="By">${actorName(d.created_by, r.names)}</td>
<td data-label="Created">${ago(d.created_at, r.now)}</td>
<td data-label="Took">${took(d)}</td>
${v.canWrite ? deploymentStatusCell(v, d) : ''}
</tr>`;
}

function deploymentTable(v: ProjectViewer, items: DeploymentDoc[], r: ReleaseContext): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Environment</th><th scope="col">Branch</th><th scope="col">Commit</th><th scope="col">Status</th><th scope="col">By</th><th scope="col">Created</th><th scope="col">Took</th>${v.canWrite ? html`<th scope="col">Change status</th>` : ''}</tr></thead>
<tbody>
${items.map((d) => deploymentRow(v, d, r))}
</tbody></table></div>`;
}

function newDeploymentForm(v: ProjectViewer, form: FormState | undefined): Html {
  if (!v.canWrite) return html``;
  if (v.project.status !== 'active') return html`<p class="muted">This project is ${v.project.status}: it accepts no new deployments.</p>`;
  return html`<h3>New deployment</h3>
${formProblem(form, { environment: 'Environment', branch: 'Branch', commit_sha: 'Commit' })}
<form method="post" action="${basePath(v.project)}/deployments" novalidate>
${csrfField(v.csrf)}
<div class="form-grid">
${textField({ form: 'deploy', name: 'environment', label: 'Environment', state: form, required: true, placeholder: 'production' })}
${textField({ form: 'deploy', name: 'branch', label: 'Branch', state: form, required: true, placeholder: 'main' })}
${textField({ form: 'deploy', name: 'commit_sha', label: 'Commit SHA (optional)', state: form, hint: '7–40 hexadecimal characters.' })}
</div>
<div class="form-actions"><button type="submit">Create deployment</button></div>
</form>`;
}

/** Deployments tab: the activity chart, filters, the list with status moves, and a new deployment. */
export function deploymentsTab(v: ProjectViewer, t: DeploymentsTab): Html {
  const base = basePath(v.project);
  const filtered = Object.keys(t.filter.errors).length === 0;
  const empty = filtered ? (t.filter.environment || t.filter.status ? 'No deployments match these filters.' : 'No deployments yet.') : 'Correct the filter to see deployments.';
  // With JavaScript, the regions marked data-live-region are fetched again when a deployment changes
  // (dashboard.js, the /v1 event stream); without it, the page is as it was loaded.
  return html`${livePanel(v.project, t.live, t.release, v.canWrite)}${activityPanel(t.activity)}<section class="panel" id="deployments" aria-labelledby="deployments-title" data-live-stream="/v1/projects/${v.project._id}/deployments">
<h2 id="deployments-title">Deployments</h2>
${deploymentFilterForm(base, t.filter)}
<div data-live-region="deployments">${t.deployments.items.length ? deploymentTable(v, t.deployments.items, t.release) : html`<p class="empty">${empty}</p>`}</div>
<p class="live-state muted" aria-live="polite" data-live-state></p>
${pagination(t.deployments.page, PER_PAGE, t.deployments.total, (n) => `${deploymentsHref(base, t.filter, n)}#deployments`)}
${newDeploymentForm(v, t.form)}
</section>`;
}

/** What the configuration tab shows: the environment filter, a page of variables, a value revealed. */
export interface ConfigurationTab {
  environment: string;
  filterError: string | undefined;
  configurations: Paged<ReadConfiguration>;
  /** A secret value revealed in this response only (POST …/reveal, admins). */
  revealed?: { id: string; value: string } | undefined;
  form?: FormState | undefined;
}

function configurationValue(c: ReadConfiguration, revealed: string | undefined): Html {
  if (!c.secret) return html`<code>${presentConfiguration(c).value}</code>`;
  return revealed !== undefined ? html`<code class="revealed">${revealed}</code>` : html`<span class="masked" aria-label="hidden secret value">••••••••</span>`;
}

function configurationActions(v: ProjectViewer, c: ReadConfiguration, revealed: string | undefined): Html {
  const base = basePath(v.project);
  return html`<td data-label="Actions"><div class="row-actions">${
    c.secret && v.isAdmin && revealed === undefined
      ? html`<form method="post" action="${base}/configurations/${c._id}/reveal" class="inline">${csrfField(v.csrf)}<button type="submit" class="link" aria-label="Reveal ${c.key} (${c.environment})">Reveal</button></form>`
      : ''
  }${v.canWrite && v.project.status !== 'archived' ? html`<a href="${base}/configurations/${c._id}/delete" aria-label="Delete ${c.key} (${c.environment})">Delete…</a>` : ''}</div></td>`;
}

function configurationRow(v: ProjectViewer, c: ReadConfiguration, revealedValue: ConfigurationTab['revealed']): Html {
  const revealed = revealedValue?.id === c._id ? revealedValue.value : undefined;
  return html`<tr>
<td data-label="Environment">${c.environment}</td>
<td data-label="Key"><code>${c.key}</code>${c.secret ? html` <span class="badge">secret</span>` : ''}</td>
<td data-label="Value">${configurationValue(c, revealed)}</td>
<td data-label="Updated">${dateTime(c.updated_at)}</td>
${v.canWrite || v.isAdmin ? configurationActions(v, c, revealed) : ''}
</tr>`;
}

function configurationTable(v: ProjectViewer, t: ConfigurationTab): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Environment</th><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Updated</th>${v.canWrite || v.isAdmin ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>
${t.configurations.items.map((c) => configurationRow(v, c, t.revealed))}
</tbody></table></div>`;
}

function newVariableForm(v: ProjectViewer, form: FormState | undefined): Html {
  if (!v.canWrite || v.project.status === 'archived') return html``;
  return html`<h3>New variable</h3>
${formProblem(form, { environment: 'Environment', key: 'Key', value: 'Value', secret: 'Secret' })}
<form method="post" action="${basePath(v.project)}/configurations" novalidate>
${csrfField(v.csrf)}
<div class="form-grid">
${textField({ form: 'config', name: 'environment', label: 'Environment', state: form, required: true, placeholder: 'production' })}
${textField({ form: 'config', name: 'key', label: 'Key', state: form, required: true, placeholder: 'DATABASE_URL' })}
</div>
${textArea({ form: 'config', name: 'value', label: 'Value', state: form, rows: 2, hint: 'At most 32 KiB.' })}
${choiceGroup({ form: 'config', name: 'secret', label: 'Secrecy', state: form, options: [{ value: 'true', label: 'Secret: stored encrypted, shown masked' }] })}
<div class="form-actions"><button type="submit">Add variable</button></div>
</form>`;
}

/** Configuration tab: the environment filter, the variables (secret values masked), a new variable. */
export function configurationTab(v: ProjectViewer, t: ConfigurationTab): Html {
  const base = basePath(v.project);
  const cenv = t.environment;
  const filterState: FormState = { values: {}, errors: t.filterError ? { cenv: t.filterError } : {} };
  return html`<section class="panel" id="configuration" aria-labelledby="configuration-title">
<h2 id="configuration-title">Configuration</h2>
<form method="get" action="${base}/configuration" class="filters" role="search" aria-label="Filter configuration">
${textField({ form: 'cfilter', name: 'cenv', label: 'Environment', value: cenv, placeholder: 'any', state: filterState })}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${cenv ? html`<a href="${base}/configuration">Clear</a>` : ''}</div>
</form>
${
  t.configurations.items.length
    ? configurationTable(v, t)
    : html`<p class="empty">${t.filterError ? 'Correct the filter to see configuration.' : 'No configuration variables.'}</p>`
}
${pagination(t.configurations.page, PER_PAGE, t.configurations.total, (n) => `${base}/configuration?${new URLSearchParams({ ...(cenv ? { cenv } : {}), cpage: String(n) })}`)}
${newVariableForm(v, t.form)}
</section>`;
}
