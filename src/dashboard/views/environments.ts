import { html, type Html } from '../../lib/html.ts';
import type { DeploymentDoc, DeploymentReviewDoc } from '../../services/deployments.ts';
import type { EnvironmentView } from '../../presenters/environments.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { csrfField, dateTime, statusBadge } from '../layout.ts';

/** docs/product.md §9: a project's environments, one environment, and the reviews waiting in them. */

export interface EnvironmentsView {
  project: ProjectDoc;
  environments: EnvironmentView[];
  /** The project's waiting deployments, oldest first. */
  pending: DeploymentDoc[];
  csrf: string;
  canWrite: boolean;
}

const base = (project: ProjectDoc) => `/dashboard/projects/${project._id}`;

function rules(e: EnvironmentView): Html {
  const p = e.protection;
  const parts = [
    p.required_approvals ? `${p.required_approvals} approval${p.required_approvals > 1 ? 's' : ''}` : '',
    p.wait_timer_seconds ? `wait ${p.wait_timer_seconds} s` : '',
    p.branch_patterns ? `branches ${p.branch_patterns.join(', ')}` : '',
    e.serial ? 'serial' : '',
    e.freeze_windows.length ? `${e.freeze_windows.length} freeze window${e.freeze_windows.length > 1 ? 's' : ''}` : '',
  ].filter(Boolean);
  return parts.length ? html`${parts.join(' · ')}` : html`<span class="muted">No rules</span>`;
}

/** Approve and Reject, each its own form (the decision is the button's). */
export function reviewButtons(project: ProjectDoc, d: DeploymentDoc, csrf: string, back: string): Html {
  const action = `${base(project)}/deployments/${d._id}/review`;
  const button = (decision: string, label: string, kind: string) => html`<form method="post" action="${action}" class="inline">
${csrfField(csrf)}<input type="hidden" name="return" value="${back}"><input type="hidden" name="decision" value="${decision}">
<button type="submit" class="${kind} small">${label}</button></form>`;
  return html`${button('approve', 'Approve', 'primary')} ${button('reject', 'Reject', 'danger')}`;
}

function pendingReviews(v: EnvironmentsView): Html {
  if (!v.pending.length) return html`<p class="empty">No deployment is waiting for a review.</p>`;
  return html`<table><thead><tr><th>Deployment</th><th>Environment</th><th>Branch</th><th>Created</th><th></th></tr></thead><tbody>${v.pending.map(
    (d) => html`<tr><td><a href="${base(v.project)}/deployments/${d._id}"><code>${d._id}</code></a></td><td>${d.environment}</td><td><code>${d.branch}</code></td><td>${dateTime(d.created_at)}</td>
<td>${v.canWrite ? reviewButtons(v.project, d, v.csrf, 'environments') : ''}</td></tr>`,
  )}</tbody></table>`;
}

/** The project page's Environments tab: the reviews waiting in the project, then its environments. */
export function environmentsTab(v: EnvironmentsView): Html {
  const rows = v.environments.map(
    (e) => html`<tr><td><a href="${base(v.project)}/environments/${e.name}">${e.name}</a></td><td>${rules(e)}</td>
<td>${e.lock ? html`${statusBadge('locked')} ${e.lock.reason}` : html`<span class="muted">Open</span>`}</td>
<td>${e.current_deployment_id ? html`<a href="${base(v.project)}/deployments/${e.current_deployment_id}"><code>${e.current_deployment_id}</code></a>` : html`<span class="muted">None</span>`}</td></tr>`,
  );
  return html`<section class="panel" id="pending-reviews" aria-labelledby="pending-title"><h2 id="pending-title">Pending reviews</h2>${pendingReviews(v)}</section>
<section class="panel" id="environments" aria-labelledby="environments-title"><h2 id="environments-title">Environments</h2>
${rows.length ? html`<table><thead><tr><th>Name</th><th>Rules</th><th>Lock</th><th>Current deployment</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="empty">No environment yet: the first deployment to a name makes it.</p>`}
</section>`;
}

export interface EnvironmentPageView {
  project: ProjectDoc;
  environment: EnvironmentView;
  /** Its deployments, newest first. */
  history: DeploymentDoc[];
  csrf: string;
  canWrite: boolean;
}

function lockForm(v: EnvironmentPageView, path: string): Html {
  if (!v.canWrite) return html``;
  if (v.environment.lock)
    return html`<form method="post" action="${path}/unlock" class="inline spaced">${csrfField(v.csrf)}<button type="submit" class="secondary small">Unlock</button></form>`;
  return html`<form method="post" action="${path}/lock" class="inline spaced">${csrfField(v.csrf)}
<label for="lock-reason">Reason</label><input id="lock-reason" name="reason" required maxlength="500">
<button type="submit" class="secondary small">Lock</button></form>`;
}

export function environmentPage(v: EnvironmentPageView): Html {
  const e = v.environment;
  const path = `${base(v.project)}/environments/${e.name}`;
  const current = e.current_deployment_id;
  return html`<p class="crumb"><a href="/dashboard/projects">Projects</a> › <a href="${base(v.project)}">${v.project.name}</a> › <a href="${base(v.project)}/environments">Environments</a></p>
<div class="page-head"><h1>${e.name}</h1>${e.lock ? statusBadge('locked') : ''}</div>
<section class="panel" aria-labelledby="env-title"><h2 id="env-title">Details</h2>
<dl class="props">
<dt>Current deployment</dt><dd>${current ? html`<a href="${base(v.project)}/deployments/${current}"><code>${current}</code></a>` : html`<span class="muted">None</span>`}</dd>
<dt>Rules</dt><dd>${rules(e)}</dd>
<dt>Lock</dt><dd>${e.lock ? html`${e.lock.reason} <span class="muted">since ${dateTime(e.lock.locked_at)}</span>` : html`<span class="muted">Open</span>`}</dd>
</dl>
${lockForm(v, path)}
${v.canWrite && current ? html`<form method="post" action="${path}/rollback" class="inline spaced">${csrfField(v.csrf)}<button type="submit" class="secondary small">Roll back</button></form>` : ''}
</section>
<section class="panel" aria-labelledby="env-history"><h2 id="env-history">History</h2>
${v.history.length ? html`<table><thead><tr><th>Deployment</th><th>Kind</th><th>Branch</th><th>Status</th><th>Created</th></tr></thead><tbody>${v.history.map(
    (d) => html`<tr><td><a href="${base(v.project)}/deployments/${d._id}"><code>${d._id}</code></a></td><td>${d.kind ?? 'deploy'}</td><td><code>${d.branch}</code></td><td>${statusBadge(d.status)}</td><td>${dateTime(d.created_at)}</td></tr>`,
  )}</tbody></table>` : html`<p class="empty">No deployment yet.</p>`}
</section>`;
}

/** The reviews of one deployment, for its page, with the buttons while it waits. */
export function reviewsPanel(project: ProjectDoc, d: DeploymentDoc, reviews: DeploymentReviewDoc[], csrf: string, canReview: boolean): Html {
  if (d.status !== 'waiting' && !reviews.length) return html``;
  return html`<section class="panel" id="reviews" aria-labelledby="reviews-title"><h2 id="reviews-title">Reviews</h2>
${reviews.length ? html`<ul>${reviews.map((r) => html`<li>${statusBadge(r.decision === 'approve' ? 'approved' : 'rejected')} <code>${r.reviewer.id}</code> ${dateTime(r.created_at)}${r.comment ? html` — ${r.comment}` : ''}</li>`)}</ul>` : html`<p class="empty">No review yet.</p>`}
${d.status === 'waiting' && canReview ? reviewButtons(project, d, csrf, 'deployment') : ''}
</section>`;
}
