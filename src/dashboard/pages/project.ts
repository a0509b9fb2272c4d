import type Router from '@koa/router';
import type { Context } from 'koa';
import { assertScope, hasScope } from '../../http/requireScope.ts';
import { validationFailed } from '../../errors.ts';
import { issuesToDetails, parseInput } from '../../schemas/parse.ts';
import type { DeploymentFilter } from '../../repositories/deployments.ts';
import { DEPLOYMENT_STATUSES, canMoveDeployment, type DeploymentStatus } from '../../domain/deployments.ts';
import type { ProjectDoc } from '../../repositories/projects.ts';
import { CreateDeploymentBody, Environment, UpdateDeploymentBody } from '../../schemas/deployments.ts';
import { CreateConfigurationBody } from '../../schemas/configurations.ts';
import { presentConfiguration } from '../../presenters/configurations.ts';
import { presentApiKey } from '../../presenters/apiKeys.ts';
import { dash, seeOther, sendPage, type DashboardDeps } from '../context.ts';
import { choiceGroup, formProblem, intParam, queryValue, refusal, selectField, str, textArea, textField, type FormState } from '../forms.ts';
import { html, type Html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, statusBadge } from '../layout.ts';
import { eventTable } from './events.ts';
import { duration, stackedBars } from '../charts.ts';
import type { DeploymentActivity, Outcome } from '../../domain/deploymentActivity.ts';
import { STATUS_ACTIONS } from './projects.ts';

/** The project page's sections, each its own URL (links, so they work without scripts). */
type ProjectTab = 'deployments' | 'configuration' | 'api-keys' | 'activity';

interface ProjectPageExtras {
  deployForm?: FormState;
  configForm?: FormState;
  /** A secret value revealed in this response only (POST …/reveal, admins). */
  revealed?: { id: string; value: string };
  status?: number;
}

const PER_PAGE = 20;
const ACTIVITY_DAYS = 30;

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
  return html`<section class="panel" id="activity-chart" aria-labelledby="activity-chart-title">
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

/**
 * One project: its details and status actions above tabs that are links (each its own URL, no script):
 * deployments (filters, new deployment, status moves), configuration variables (secret values masked;
 * admins may reveal one at a time), and for admins its API keys and its activity (the audit log).
 */
export function registerProjectPage(router: Router, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, deployments, configurations, apiKeys } = deps.services;

  async function render(ctx: Context, project: ProjectDoc, tab: ProjectTab, extras: ProjectPageExtras = {}) {
    const state = dash(ctx);
    const { principal } = state;
    const canWrite = hasScope(principal, 'write');
    const isAdmin = hasScope(principal, 'admin');
    const base = `/dashboard/projects/${project._id}`;

    // Deployment filters, checked like GET /v1/projects/:id/deployments checks them.
    const envFilter = queryValue(ctx.query.environment);
    const statusFilter = queryValue(ctx.query.status);
    const filterErrors: Record<string, string> = {};
    const filter: DeploymentFilter = {};
    if (envFilter) {
      if (Environment.safeParse(envFilter).success) filter.environment = envFilter;
      else filterErrors.environment = 'Use lower-case letters, digits and "-" only.';
    }
    if (statusFilter) {
      if ((DEPLOYMENT_STATUSES as readonly string[]).includes(statusFilter)) filter.status = statusFilter as DeploymentStatus;
      else filterErrors.status = 'Choose a status from the list.';
    }
    const dpage = intParam(ctx.query.dpage, 1);
    const filtered = Object.keys(filterErrors).length === 0;
    const deps_ = tab === 'deployments' && filtered ? await deployments.list(principal, project._id, filter, { page: dpage, per_page: PER_PAGE }) : { items: [], total: 0 };
    const activity = tab === 'deployments' ? await deployments.activity(principal, project._id, ACTIVITY_DAYS) : undefined;

    const cenv = queryValue(ctx.query.cenv);
    const cenvOk = !cenv || Environment.safeParse(cenv).success;
    const cpage = intParam(ctx.query.cpage, 1);
    const configs = tab === 'configuration' && cenvOk
      ? await configurations.list(principal, project._id, cenv ? { environment: cenv } : {}, { page: cpage, per_page: PER_PAGE })
      : { items: [], total: 0 };

    const query = (over: Record<string, string | number>) => {
      const params = new URLSearchParams();
      const current: Record<string, string | number> = { environment: envFilter, status: statusFilter, dpage, ...over };
      for (const [k, v] of Object.entries(current)) if (v !== '' && !(k.endsWith('page') && v === 1)) params.set(k, String(v));
      const qs = params.toString();
      return `${base}${qs ? `?${qs}` : ''}`;
    };
    const filterState: FormState = { values: { environment: envFilter, status: statusFilter }, errors: filterErrors };
    const active = project.status === 'active';
    const archived = project.status === 'archived';

    const tabs: { key: ProjectTab; label: string; href: string }[] = [
      { key: 'deployments', label: 'Deployments', href: base },
      { key: 'configuration', label: 'Configuration', href: `${base}/configuration` },
      ...(isAdmin
        ? [
            { key: 'api-keys' as const, label: 'API keys', href: `${base}/api-keys` },
            { key: 'activity' as const, label: 'Activity', href: `${base}/activity` },
          ]
        : []),
    ];
    const head = html`<p class="crumb"><a href="/dashboard/projects">Projects</a></p>
<div class="page-head"><h1>${project.name}</h1>${statusBadge(project.status)}</div>
<section class="panel" aria-labelledby="details-title">
<h2 id="details-title" class="visually-hidden">Details</h2>
<dl class="props">
<dt>ID</dt><dd><code>${project._id}</code></dd>
<dt>Deploy target</dt><dd>${project.deploy_target ?? html`<span class="muted">Not set</span>`}</dd>
<dt>Created</dt><dd>${dateTime(project.created_at)}</dd>
<dt>Updated</dt><dd>${dateTime(project.updated_at)}</dd>
</dl>
${
  canWrite || isAdmin
    ? html`<div class="form-actions spaced">
${
  canWrite
    ? html`<form method="post" action="${base}/status" class="inline">
${csrfField(state.viewer.csrf)}
${STATUS_ACTIONS[project.status].map((a) => html`<button type="submit" class="secondary small" name="status" value="${a.to}">${a.label}</button>`)}
</form>`
    : ''
}
${isAdmin ? html`<a href="${base}/delete">Delete project…</a>` : ''}
</div>`
    : ''
}
</section>
<nav class="tabs" aria-label="Project sections"><ul>${tabs.map(
      (t) => html`<li><a href="${t.href}"${t.key === tab ? html` aria-current="page"` : ''}>${t.label}</a></li>`,
    )}</ul></nav>`;
    const show = (title: string, body: Html) =>
      sendPage(ctx, config, { title: `${title} · ${project.name}`, active: 'projects', status: extras.status ?? 200, body: html`${head}${body}` });

    if (tab === 'api-keys') {
      assertScope(principal, 'admin');
      const keys = await apiKeys.list(principal, project._id, {}, { page: intParam(ctx.query.page, 1), per_page: PER_PAGE });
      return show(
        'API keys',
        html`<section class="panel" id="api-keys" aria-labelledby="api-keys-title">
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
${pagination(intParam(ctx.query.page, 1), PER_PAGE, keys.total, (n) => `${base}/api-keys?page=${n}`)}
<p class="spaced"><a href="/dashboard/settings/api-keys?project=${encodeURIComponent(project._id)}">Create, rotate or revoke keys in Settings › API Keys</a></p>
</section>`,
      );
    }

    if (tab === 'activity') {
      assertScope(principal, 'admin');
      const page = intParam(ctx.query.page, 1);
      const events = await deps.services.events.list(principal, { project_id: project._id }, { page, per_page: PER_PAGE });
      return show(
        'Activity',
        html`<section class="panel" id="activity" aria-labelledby="activity-title">
<h2 id="activity-title">Activity</h2>
${events.items.length ? eventTable(events.items, { project: false }) : html`<p class="empty">Nothing has happened in this project yet.</p>`}
${pagination(page, PER_PAGE, events.total, (n) => `${base}/activity?page=${n}`)}
<p class="spaced"><a href="/dashboard/events?project_id=${encodeURIComponent(project._id)}">Open in Events</a></p>
</section>`,
      );
    }

    if (tab === 'deployments')
      return show(
        'Deployments',
        html`${activity && activityPanel(activity)}<section class="panel" id="deployments" aria-labelledby="deployments-title">
<h2 id="deployments-title">Deployments</h2>
<form method="get" action="${base}" class="filters" role="search" aria-label="Filter deployments">
${textField({ form: 'dfilter', name: 'environment', label: 'Environment', state: filterState, placeholder: 'any' })}
${selectField({
  form: 'dfilter',
  name: 'status',
  label: 'Status',
  state: filterState,
  options: [{ value: '', label: 'Any' }, ...DEPLOYMENT_STATUSES.map((s) => ({ value: s, label: s }))],
})}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${envFilter || statusFilter ? html`<a href="${query({ environment: '', status: '', dpage: 1 })}">Clear</a>` : ''}</div>
</form>
${
  deps_.items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Environment</th><th scope="col">Branch</th><th scope="col">Commit</th><th scope="col">Status</th><th scope="col">Created</th>${canWrite ? html`<th scope="col">Change status</th>` : ''}</tr></thead>
<tbody>
${deps_.items.map((d) => {
  const next = DEPLOYMENT_STATUSES.filter((s) => canMoveDeployment(d.status, s));
  return html`<tr>
<td data-label="Environment"><a href="${base}/deployments/${d._id}" aria-label="Deployment ${d.environment} ${d.branch}">${d.environment}</a></td>
<td data-label="Branch"><code>${d.branch}</code></td>
<td data-label="Commit">${d.commit_sha ? html`<code>${d.commit_sha.slice(0, 12)}</code>` : html`<span class="muted">—</span>`}</td>
<td data-label="Status">${statusBadge(d.status)}${d.status_message ? html` <span class="muted">${d.status_message}</span>` : ''}</td>
<td data-label="Created">${dateTime(d.created_at)}</td>
${
  canWrite
    ? html`<td data-label="Change">${
        next.length && !archived
          ? html`<form method="post" action="${base}/deployments/${d._id}/status" class="inline">
${csrfField(state.viewer.csrf)}
<label for="dstatus-${d._id}" class="visually-hidden">New status for ${d.environment} ${d.branch}</label>
<select id="dstatus-${d._id}" name="status">${next.map((s) => html`<option value="${s}">${s}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Update status of ${d.environment} ${d.branch}">Update</button>
</form>`
          : html`<span class="muted">—</span>`
      }</td>`
    : ''
}
</tr>`;
})}
</tbody></table></div>`
    : html`<p class="empty">${filtered ? (envFilter || statusFilter ? 'No deployments match these filters.' : 'No deployments yet.') : 'Correct the filter to see deployments.'}</p>`
}
${pagination(dpage, PER_PAGE, deps_.total, (n) => `${query({ dpage: n })}#deployments`)}
${
  canWrite && active
    ? html`<h3>New deployment</h3>
${formProblem(extras.deployForm, { environment: 'Environment', branch: 'Branch', commit_sha: 'Commit' })}
<form method="post" action="${base}/deployments" novalidate>
${csrfField(state.viewer.csrf)}
<div class="form-grid">
${textField({ form: 'deploy', name: 'environment', label: 'Environment', state: extras.deployForm, required: true, placeholder: 'production' })}
${textField({ form: 'deploy', name: 'branch', label: 'Branch', state: extras.deployForm, required: true, placeholder: 'main' })}
${textField({ form: 'deploy', name: 'commit_sha', label: 'Commit SHA (optional)', state: extras.deployForm, hint: '7–40 hexadecimal characters.' })}
</div>
<div class="form-actions"><button type="submit">Create deployment</button></div>
</form>`
    : canWrite
      ? html`<p class="muted">This project is ${project.status}: it accepts no new deployments.</p>`
      : ''
}
</section>`,
      );

    return show(
      'Configuration',
      html`<section class="panel" id="configuration" aria-labelledby="configuration-title">
<h2 id="configuration-title">Configuration</h2>
<form method="get" action="${base}/configuration" class="filters" role="search" aria-label="Filter configuration">
${textField({ form: 'cfilter', name: 'cenv', label: 'Environment', value: cenv, placeholder: 'any', state: { values: {}, errors: cenvOk ? {} : { cenv: 'Use lower-case letters, digits and "-" only.' } } })}
<div class="form-actions"><button type="submit" class="secondary">Filter</button>${cenv ? html`<a href="${base}/configuration">Clear</a>` : ''}</div>
</form>
${
  configs.items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Environment</th><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Updated</th>${canWrite || isAdmin ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>
${configs.items.map((c) => {
  const shown = presentConfiguration(c);
  const revealed = extras.revealed?.id === c._id ? extras.revealed.value : undefined;
  return html`<tr>
<td data-label="Environment">${c.environment}</td>
<td data-label="Key"><code>${c.key}</code>${c.secret ? html` <span class="badge">secret</span>` : ''}</td>
<td data-label="Value">${
    c.secret
      ? revealed !== undefined
        ? html`<code class="revealed">${revealed}</code>`
        : html`<span class="masked" aria-label="hidden secret value">••••••••</span>`
      : html`<code>${shown.value}</code>`
  }</td>
<td data-label="Updated">${dateTime(c.updated_at)}</td>
${
  canWrite || isAdmin
    ? html`<td data-label="Actions"><div class="row-actions">${
        c.secret && isAdmin && revealed === undefined
          ? html`<form method="post" action="${base}/configurations/${c._id}/reveal" class="inline">${csrfField(state.viewer.csrf)}<button type="submit" class="link" aria-label="Reveal ${c.key} (${c.environment})">Reveal</button></form>`
          : ''
      }${canWrite && !archived ? html`<a href="${base}/configurations/${c._id}/delete" aria-label="Delete ${c.key} (${c.environment})">Delete…</a>` : ''}</div></td>`
    : ''
}
</tr>`;
})}
</tbody></table></div>`
    : html`<p class="empty">${cenvOk ? 'No configuration variables.' : 'Correct the filter to see configuration.'}</p>`
}
${pagination(cpage, PER_PAGE, configs.total, (n) => `${base}/configuration?${new URLSearchParams({ ...(cenv ? { cenv } : {}), cpage: String(n) })}`)}
${
  canWrite && !archived
    ? html`<h3>New variable</h3>
${formProblem(extras.configForm, { environment: 'Environment', key: 'Key', value: 'Value', secret: 'Secret' })}
<form method="post" action="${base}/configurations" novalidate>
${csrfField(state.viewer.csrf)}
<div class="form-grid">
${textField({ form: 'config', name: 'environment', label: 'Environment', state: extras.configForm, required: true, placeholder: 'production' })}
${textField({ form: 'config', name: 'key', label: 'Key', state: extras.configForm, required: true, placeholder: 'DATABASE_URL' })}
</div>
${textArea({ form: 'config', name: 'value', label: 'Value', state: extras.configForm, rows: 2, hint: 'At most 32 KiB.' })}
${choiceGroup({ form: 'config', name: 'secret', label: 'Secrecy', state: extras.configForm, options: [{ value: 'true', label: 'Secret: stored encrypted, shown masked' }] })}
<div class="form-actions"><button type="submit">Add variable</button></div>
</form>`
    : ''
}
</section>`,
    );
  }

  const load = async (ctx: Context) => await projects.get(dash(ctx).principal, ctx.params.id!);

  router.get('/projects/:id', async (ctx) => {
    assertScope(dash(ctx).principal, 'read');
    await render(ctx, await load(ctx), 'deployments');
  });
  for (const tab of ['configuration', 'api-keys', 'activity'] as const) {
    router.get(`/projects/:id/${tab}`, async (ctx) => {
      assertScope(dash(ctx).principal, 'read');
      await render(ctx, await load(ctx), tab);
    });
  }

  router.post('/projects/:id/deployments', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const project = await load(ctx);
    const form = state.form;
    try {
      const parsed = CreateDeploymentBody.safeParse({ environment: str(form, 'environment'), branch: str(form, 'branch'), commit_sha: str(form, 'commit_sha') || null });
      if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error));
      const deployment = await deployments.create(state.principal, project._id, parsed.data);
      seeOther(ctx, config, `/dashboard/projects/${project._id}#deployments`, {
        kind: 'success',
        text: `Deployment of ${deployment.branch} to ${deployment.environment} queued.`,
      });
    } catch (err) {
      const refused = refusal(err, { fields: ['environment', 'branch', 'commit_sha'] });
      if (!refused) throw err;
      await render(ctx, await load(ctx), 'deployments', { deployForm: { values: form, ...refused }, status: refused.status });
    }
  });

  router.post('/projects/:id/deployments/:deploymentId/status', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const project = await load(ctx);
    const parsed = UpdateDeploymentBody.safeParse({ status: str(state.form, 'status') });
    if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error), 'Choose a valid status.');
    // From the deployment's own page, back to it; from the list, back to the list.
    const back =
      str(state.form, 'return') === 'deployment'
        ? `/dashboard/projects/${project._id}/deployments/${encodeURIComponent(ctx.params.deploymentId!)}`
        : `/dashboard/projects/${project._id}#deployments`;
    try {
      const deployment = await deployments.updateStatus(state.principal, project._id, ctx.params.deploymentId!, { status: parsed.data.status });
      seeOther(ctx, config, back, { kind: 'success', text: `Deployment to ${deployment.environment} is now ${deployment.status}.` });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, back, { kind: 'error', text: refused.message ?? 'The status could not be changed.' });
    }
  });

  router.post('/projects/:id/configurations', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const form = state.form;
    try {
      const input = parseInput(CreateConfigurationBody, {
        environment: str(form, 'environment'),
        key: str(form, 'key'),
        value: str(form, 'value'),
        secret: str(form, 'secret') === 'true',
      });
      // As on /v1: an archived project refuses configuration writes (409 project_not_active).
      const created = await configurations.create(state.principal, ctx.params.id!, input);
      seeOther(ctx, config, `/dashboard/projects/${created.project_id}/configuration`, { kind: 'success', text: `${created.key} added to ${created.environment}.` });
    } catch (err) {
      const refused = refusal(err, { fields: ['environment', 'key', 'value', 'secret'], conflictField: 'key' });
      if (!refused) throw err;
      // A secret value is never sent back into the page.
      const values = { ...form, value: str(form, 'secret') === 'true' ? '' : str(form, 'value') };
      await render(ctx, await load(ctx), 'configuration', { configForm: { values, ...refused }, status: refused.status });
    }
  });

  router.post('/projects/:id/configurations/:configId/reveal', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'admin');
    const doc = await configurations.get(state.principal, ctx.params.id!, ctx.params.configId!, { reveal: true });
    // Rendered in this response only (no-store); a reload shows the masked page again.
    await render(ctx, await load(ctx), 'configuration', { revealed: { id: doc._id, value: doc.revealed ?? '' } });
  });

  router.get('/projects/:id/configurations/:configId/delete', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const doc = await configurations.get(state.principal, ctx.params.id!, ctx.params.configId!);
    const project = await load(ctx);
    sendPage(ctx, config, {
      title: `Delete ${doc.key}`,
      active: 'projects',
      body: confirmBody({
        crumb: project.name,
        title: `Delete ${doc.key}?`,
        message: html`<p>This removes <code>${doc.key}</code> from the <strong>${doc.environment}</strong> environment of ${project.name}.</p>`,
        action: `/dashboard/projects/${project._id}/configurations/${doc._id}/delete`,
        button: 'Delete variable',
        cancelHref: `/dashboard/projects/${project._id}/configuration`,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/projects/:id/configurations/:configId/delete', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const doc = await configurations.delete(state.principal, ctx.params.id!, ctx.params.configId!);
    seeOther(ctx, config, `/dashboard/projects/${doc.project_id}/configuration`, { kind: 'success', text: `${doc.key} removed from ${doc.environment}.` });
  });
}
