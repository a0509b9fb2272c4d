import type { Actor } from '../../domain/principal.ts';
import { html, type Html } from '../../lib/html.ts';
import type { EnvironmentView } from '../../presenters/environments.ts';
import type { DeploymentDoc } from '../../services/deployments.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { duration } from '../charts.ts';
import { statusBadge } from '../layout.ts';

/**
 * The release view's pieces (docs/dashboard.md): what is live in each environment, and for any
 * deployment its relative age, how long it took and who made it, by name.
 */

/** What a release view needs beyond the deployments: now (the server's clock) and the actors' names. */
export interface ReleaseContext {
  now: Date;
  /** `type:id` → the user's or API key's name (DashboardClientService.actorNames). */
  names: Map<string, string>;
}

const fullTime = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** "just now", "5 min ago", "3 h ago", "2 days ago", with the full time in the `<time>`'s title. */
export function ago(value: Date | null | undefined, now: Date): Html {
  if (!value) return html`<span class="muted">—</span>`;
  const seconds = Math.max(0, Math.round((now.getTime() - value.getTime()) / 1000));
  const text =
    seconds < 45
      ? 'just now'
      : seconds < 3600
        ? `${Math.max(1, Math.round(seconds / 60))} min ago`
        : seconds < 86_400
          ? `${Math.round(seconds / 3600)} h ago`
          : `${Math.round(seconds / 86_400)} day${Math.round(seconds / 86_400) === 1 ? '' : 's'} ago`;
  return html`<time datetime="${value.toISOString()}" title="${fullTime(value)}">${text}</time>`;
}

/** How long a deployment took, from its start (or creation) to its end; "running" until it ends. */
export function took(d: DeploymentDoc): Html {
  if (!d.finished_at) return d.started_at ? html`<span class="muted">running</span>` : html`<span class="muted">—</span>`;
  const from = d.started_at ?? d.created_at;
  return html`<span data-seconds="${Math.round((d.finished_at.getTime() - from.getTime()) / 1000)}">${duration((d.finished_at.getTime() - from.getTime()) / 1000)}</span>`;
}

const KINDS: Record<Actor['type'], string> = { user: 'a user', api_key: 'an API key', client: 'an OAuth app', system: 'Slipway', federated: 'a CI job' };

/** Who made it: the user's or API key's name; else what kind of actor it was (never an id). */
export function actorName(actor: Actor, names: Map<string, string>): Html {
  const name = names.get(`${actor.type}:${actor.id}`);
  if (name) return html`<span class="actor">${name}</span>${actor.type === 'api_key' ? html` <span class="muted">(API key)</span>` : ''}`;
  return html`<span class="muted">${KINDS[actor.type]}</span>`;
}

export const shortSha = (sha: string | null) => (sha ? html`<code>${sha.slice(0, 7)}</code>` : html`<span class="muted">no commit</span>`);

/** "commit a1b2c3d on main": what a deployment puts live. */
export const whatIsDeployed = (d: DeploymentDoc) => html`${shortSha(d.commit_sha)} on <code>${d.branch}</code>`;

export interface LiveEnvironment {
  environment: EnvironmentView;
  /** The deployment live in it (its current one), if any. */
  live: DeploymentDoc | null;
}

/** The actors whose names a release view shows. */
export const actorsOf = (deployments: readonly (DeploymentDoc | null)[]) => deployments.flatMap((d) => (d ? [d.created_by] : []));

function liveCard(project: ProjectDoc, e: LiveEnvironment, r: ReleaseContext, canWrite: boolean): Html {
  const base = `/dashboard/projects/${project._id}`;
  const d = e.live;
  const name = e.environment.name;
  const actions = canWrite && d && project.status === 'active' ? html`<p class="live-actions"><a href="${base}/deployments/${d._id}/redeploy">Redeploy<span class="visually-hidden"> ${name}</span>…</a> <a href="${base}/environments/${name}/rollback">Roll back<span class="visually-hidden"> ${name}</span>…</a></p>` : '';
  return html`<li class="live-env" data-environment="${name}">
<h3><a href="${base}/environments/${name}">${name}</a>${e.environment.lock ? html` ${statusBadge('locked')}` : ''}</h3>
${
  d
    ? html`<p class="live-what"><a href="${base}/deployments/${d._id}">${whatIsDeployed(d)}</a></p>
<dl class="live-props">
<div><dt>Status</dt><dd>${statusBadge(d.status)}</dd></div>
<div><dt>By</dt><dd data-field="by">${actorName(d.created_by, r.names)}</dd></div>
<div><dt>When</dt><dd>${ago(d.finished_at ?? d.created_at, r.now)}</dd></div>
<div><dt>Took</dt><dd>${took(d)}</dd></div>
${d.url ? html`<div><dt>URL</dt><dd><a href="${d.url}" rel="noopener noreferrer">${d.url.replace(/^https?:\/\//, '')}</a></dd></div>` : ''}
</dl>${actions}`
    : html`<p class="muted">Nothing live yet.</p>`
}
</li>`;
}

/** The project's environments with what is live in each (the project page and its Environments tab). */
export function livePanel(project: ProjectDoc, envs: readonly LiveEnvironment[], r: ReleaseContext, canWrite: boolean): Html {
  return html`<section class="panel" id="live" aria-labelledby="live-title" data-live-region="live">
<h2 id="live-title">Live</h2>
${envs.length ? html`<ul class="live-list">${envs.map((e) => liveCard(project, e, r, canWrite))}</ul>` : html`<p class="empty">No environment yet: the first deployment to a name makes it.</p>`}
</section>`;
}

/** A confirmation's "what changes": the environment goes from the deployment live now to another's commit. */
export function changeSummary(o: { environment: string; from: DeploymentDoc | null; to: DeploymentDoc; names: Map<string, string>; now: Date }): Html {
  const side = (label: string, d: DeploymentDoc, cls: string) =>
    html`<div class="change-side ${cls}"><dt>${label}</dt><dd>${whatIsDeployed(d)}<br><span class="muted">by</span> ${actorName(d.created_by, o.names)}, ${ago(d.created_at, o.now)}</dd></div>`;
  const same = o.from && o.from.commit_sha === o.to.commit_sha && o.from.branch === o.to.branch;
  return html`<p><strong>${o.environment}</strong> changes ${o.from ? html`from commit ${shortSha(o.from.commit_sha)} to commit ${shortSha(o.to.commit_sha)}` : html`to commit ${shortSha(o.to.commit_sha)} (nothing is live there now)`}.${
    same ? html` <span class="muted">It is the same commit, deployed again.</span>` : ''
  }</p>
<dl class="change">${o.from ? side('Live now', o.from, 'change-from') : ''}${side('After', o.to, 'change-to')}</dl>
<p class="muted">A new deployment is created; the environment's rules (approvals, locks, freeze windows) apply to it.</p>`;
}
