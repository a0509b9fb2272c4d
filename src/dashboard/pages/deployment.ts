import type Router from '@koa/router';
import { assertScope, hasScope } from '../../http/requireScope.ts';
import type { EventDoc } from '../../repositories/events.ts';
import { DEPLOYMENT_STATUSES, canMoveDeployment } from '../../domain/deployments.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { html } from '../../lib/html.ts';
import { csrfField, dateTime, statusBadge } from '../layout.ts';

/** A deployment has a handful of status changes (queued → … → superseded); one page holds them all. */
const HISTORY_LIMIT = 100;

/**
 * One deployment: what was deployed, its current status, and its status history. The history is read
 * from the audit log (`deployment.created` and `deployment.status_changed` events about it), the one
 * record of who changed what and when: no second copy is stored on the deployment. The log is written
 * after each change, so a crash in between can leave a step out; the current status shown above the
 * history always comes from the deployment itself.
 */
export function registerDeploymentPage(router: Router, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, deployments } = deps.services;

  router.get('/projects/:id/deployments/:deploymentId', async (ctx) => {
    const state = dash(ctx);
    const { principal } = state;
    assertScope(principal, 'read');
    const project = await projects.get(principal, ctx.params.id!);
    const d = await deployments.get(principal, project._id, ctx.params.deploymentId!);
    const events = await deps.services.events.list(principal, { project_id: project._id, deployment_id: d._id }, { page: 1, per_page: HISTORY_LIMIT });
    const history = events.items.filter((e) => e.type.startsWith('deployment.')).reverse();
    const canWrite = hasScope(principal, 'write');
    const isAdmin = hasScope(principal, 'admin');
    const next = DEPLOYMENT_STATUSES.filter((s) => canMoveDeployment(d.status, s));
    const base = `/dashboard/projects/${project._id}`;
    // Who made a change is audit-log data (admins); others see what changed and when.
    const by = (e: EventDoc) => (isAdmin ? html`${e.actor.type} <code>${e.actor.id}</code>` : html`${e.actor.type}`);
    const step = (e: EventDoc) =>
      e.type === 'deployment.created'
        ? html`Created ${statusBadge('queued')}`
        : html`${typeof e.data.from === 'string' ? statusBadge(e.data.from) : ''} → ${typeof e.data.to === 'string' ? statusBadge(e.data.to) : ''}${
            typeof e.data.superseded_by === 'string' ? html` <span class="muted">by a newer deployment</span>` : ''
          }`;

    sendPage(ctx, config, {
      title: `Deployment ${d.environment} · ${project.name}`,
      active: 'projects',
      body: html`<p class="crumb"><a href="/dashboard/projects">Projects</a> › <a href="${base}">${project.name}</a></p>
<div class="page-head"><h1>Deployment to ${d.environment}</h1>${statusBadge(d.status)}</div>
<section class="panel" aria-labelledby="deployment-title">
<h2 id="deployment-title">Details</h2>
<dl class="props">
<dt>ID</dt><dd><code>${d._id}</code></dd>
<dt>Environment</dt><dd>${d.environment}</dd>
<dt>Branch</dt><dd><code>${d.branch}</code></dd>
<dt>Commit</dt><dd>${d.commit_sha ? html`<code>${d.commit_sha}</code>` : html`<span class="muted">Not given</span>`}</dd>
<dt>Status</dt><dd>${statusBadge(d.status)}${d.status_message ? html` ${d.status_message}` : ''}</dd>
${d.url ? html`<dt>URL</dt><dd><code>${d.url}</code></dd>` : ''}
<dt>Created</dt><dd>${dateTime(d.created_at)}</dd>
<dt>Started</dt><dd>${dateTime(d.started_at)}</dd>
<dt>Finished</dt><dd>${dateTime(d.finished_at)}</dd>
</dl>
${
  canWrite && next.length && project.status !== 'archived'
    ? html`<form method="post" action="${base}/deployments/${d._id}/status" class="inline spaced">
${csrfField(state.viewer.csrf)}
<input type="hidden" name="return" value="deployment">
<label for="dstatus">New status</label>
<select id="dstatus" name="status">${next.map((s) => html`<option value="${s}">${s}</option>`)}</select>
<button type="submit" class="secondary small">Update status</button>
</form>`
    : ''
}
</section>
<section class="panel" id="history" aria-labelledby="history-title">
<h2 id="history-title">Status history</h2>
${
  history.length
    ? html`<ol class="history">${history.map((e) => html`<li><span class="history-when">${dateTime(e.created_at)}</span> <span class="history-step">${step(e)}</span> <span class="muted">by ${by(e)}</span></li>`)}</ol>`
    : html`<p class="empty">No recorded changes.</p>`
}
</section>
<p><a href="${base}#deployments">Back to ${project.name}</a></p>`,
    });
  });
}
