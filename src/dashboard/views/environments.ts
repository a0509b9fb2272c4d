import { html, type Html } from '../../lib/html.ts';
import type { DeploymentDoc, DeploymentReviewDoc } from '../../services/deployments.ts';
import type { EnvironmentView } from '../../presenters/environments.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { csrfField, dateTime, statusBadge } from '../layout.ts';
import { actorName, ago, took, whatIsDeployed, type LiveEnvironment, type ReleaseContext } from './release.ts';

/** docs/product.md §9: a project's environments, one environment, and the reviews waiting in them. */

export interface EnvironmentsView {
  project: ProjectDoc;
  environments: EnvironmentView[];
  /** The project's waiting deployments, oldest first. */
  pending: DeploymentDoc[];
  /** Each environment with the deployment live in it. */
  live: LiveEnvironment[];
  release: ReleaseContext;
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
  // The list's stacked layout on narrow screens (class `stack`, each cell labelled), as every other list.
  return html`<div class="table-wrap"><table class="list stack"><thead><tr><th scope="col">Deployment</th><th scope="col">Environment</th><th scope="col">By</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Review</span></th></tr></thead><tbody>${v.pending.map(
    (d) => html`<tr><td data-label="Deployment"><a href="${base(v.project)}/deployments/${d._id}">${whatIsDeployed(d)}</a></td><td data-label="Environment">${d.environment}</td><td data-label="By">${actorName(d.created_by, v.release.names)}</td><td data-label="Created">${ago(d.created_at, v.release.now)}</td>
<td data-label="Review">${v.canWrite ? reviewButtons(v.project, d, v.csrf, 'environments') : ''}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The project page's Environments tab: the reviews waiting in the project, then its environments. */
/** What is live: commit and branch (linked to the deployment), who, when, how long it took, its URL. */
function liveCell(project: ProjectDoc, d: DeploymentDoc | null, r: ReleaseContext): Html {
  if (!d) return html`<span class="muted">None</span>`;
  return html`<a href="${base(project)}/deployments/${d._id}">${whatIsDeployed(d)}</a><br><span class="muted">by</span> ${actorName(d.created_by, r.names)}, ${ago(d.finished_at ?? d.created_at, r.now)}, <span class="muted">took</span> ${took(d)}${
    d.url ? html`<br><a href="${d.url}" rel="noopener noreferrer">${d.url.replace(/^https?:\/\//, '')}</a>` : ''
  }`;
}

export function environmentsTab(v: EnvironmentsView): Html {
  const rows = v.live.map(
    ({ environment: e, live }) => html`<tr><td data-label="Name"><a href="${base(v.project)}/environments/${e.name}">${e.name}</a></td><td data-label="Live">${liveCell(v.project, live, v.release)}</td><td data-label="Rules">${rules(e)}</td>
<td data-label="Lock">${e.lock ? html`${statusBadge('locked')} ${e.lock.reason}` : html`<span class="muted">Open</span>`}</td></tr>`,
  );
  return html`<section class="panel" id="pending-reviews" aria-labelledby="pending-title"><h2 id="pending-title">Pending reviews</h2>${pendingReviews(v)}</section>
<section class="panel" id="environments" aria-labelledby="environments-title"><h2 id="environments-title">Environments</h2>
${rows.length ? html`<div class="table-wrap"><table class="list stack"><thead><tr><th scope="col">Name</th><th scope="col">Live</th><th scope="col">Rules</th><th scope="col">Lock</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="empty">No environment yet: the first deployment to a name makes it.</p>`}
</section>`;
}

export interface EnvironmentPageView {
  project: ProjectDoc;
  environment: EnvironmentView;
  /** Its deployments, newest first. */
  history: DeploymentDoc[];
  /** The deployment live in it, if any. */
  live: DeploymentDoc | null;
  release: ReleaseContext;
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
<dt>Live</dt><dd>${liveCell(v.project, v.live, v.release)}</dd>
<dt>Rules</dt><dd>${rules(e)}</dd>
<dt>Lock</dt><dd>${e.lock ? html`${e.lock.reason} <span class="muted">since ${dateTime(e.lock.locked_at)}</span>` : html`<span class="muted">Open</span>`}</dd>
</dl>
${lockForm(v, path)}
${v.canWrite && current ? html`<p class="spaced"><a href="${path}/rollback">Roll back…</a></p>` : ''}
</section>
<section class="panel" aria-labelledby="env-history"><h2 id="env-history">History</h2>
${v.history.length ? html`<div class="table-wrap"><table class="list stack"><thead><tr><th scope="col">Deployment</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">By</th><th scope="col">Created</th><th scope="col">Took</th></tr></thead><tbody>${v.history.map(
    (d) => html`<tr><td data-label="Deployment"><a href="${base(v.project)}/deployments/${d._id}">${whatIsDeployed(d)}</a></td><td data-label="Kind">${d.kind ?? 'deploy'}</td><td data-label="Status">${statusBadge(d.status)}</td><td data-label="By">${actorName(d.created_by, v.release.names)}</td><td data-label="Created">${ago(d.created_at, v.release.now)}</td><td data-label="Took">${took(d)}</td></tr>`,
  )}</tbody></table></div>` : html`<p class="empty">No deployment yet.</p>`}
</section>`;
}

/** The reviews of one deployment, for its page, with the buttons while it waits. */
export function reviewsPanel(project: ProjectDoc, d: DeploymentDoc, reviews: DeploymentReviewDoc[], csrf: string, canReview: boolean, names: Map<string, string>): Html {
  if (d.status !== 'waiting' && !reviews.length) return html``;
  return html`<section class="panel" id="reviews" aria-labelledby="reviews-title"><h2 id="reviews-title">Reviews</h2>
${reviews.length ? html`<ul>${reviews.map((r) => html`<li>${statusBadge(r.decision === 'approve' ? 'approved' : 'rejected')} ${actorName(r.reviewer, names)} ${dateTime(r.created_at)}${r.comment ? html` — ${r.comment}` : ''}</li>`)}</ul>` : html`<p class="empty">No review yet.</p>`}
${d.status === 'waiting' && canReview ? reviewButtons(project, d, csrf, 'deployment') : ''}
</section>`;
}
