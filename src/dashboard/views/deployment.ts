import { DEPLOYMENT_STATUSES, canMoveDeployment } from '../../domain/deployments.ts';
import { html, type Html } from '../../lib/html.ts';
import type { DeploymentDoc } from '../../services/deployments.ts';
import type { LogRead, ReadLine } from '../../services/deploymentLogs.ts';
import type { EventDoc } from '../../services/events.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { csrfField, dateTime, statusBadge } from '../layout.ts';

export interface DeploymentView {
  project: ProjectDoc;
  deployment: DeploymentDoc;
  /** Oldest first. */
  history: EventDoc[];
  /** The lines shown, and the highest seq stored. */
  log: LogRead & { lastSeq: number };
  /** How many lines a page of the log shows. */
  logPage: number;
  csrf: string;
  canWrite: boolean;
  isAdmin: boolean;
}

/** One step of the history: created, or a move from one status to another. */
function step(e: EventDoc): Html {
  if (e.type === 'deployment.created') return html`Created ${statusBadge('queued')}`;
  return html`${typeof e.data.from === 'string' ? statusBadge(e.data.from) : ''} → ${typeof e.data.to === 'string' ? statusBadge(e.data.to) : ''}${
    typeof e.data.superseded_by === 'string' ? html` <span class="muted">by a newer deployment</span>` : ''
  }`;
}

function history(v: DeploymentView): Html {
  if (!v.history.length) return html`<p class="empty">No recorded changes.</p>`;
  // Who made a change is audit-log data (admins); others see what changed and when.
  const by = (e: EventDoc) => (v.isAdmin ? html`${e.actor.type} <code>${e.actor.id}</code>` : html`${e.actor.type}`);
  return html`<ol class="history">${v.history.map(
    (e) => html`<li><span class="history-when">${dateTime(e.created_at)}</span> <span class="history-step">${step(e)}</span> <span class="muted">by ${by(e)}</span></li>`,
  )}</ol>`;
}

function statusForm(v: DeploymentView, base: string): Html {
  const d = v.deployment;
  const next = DEPLOYMENT_STATUSES.filter((s) => canMoveDeployment(d.status, s));
  if (!v.canWrite || !next.length || v.project.status === 'archived') return html``;
  return html`<form method="post" action="${base}/deployments/${d._id}/status" class="inline spaced">
${csrfField(v.csrf)}
<input type="hidden" name="return" value="deployment">
<label for="dstatus">New status</label>
<select id="dstatus" name="status">${next.map((s) => html`<option value="${s}">${s}</option>`)}</select>
<button type="submit" class="secondary small">Update status</button>
</form>`;
}

function logLine(line: ReadLine): Html {
  return html`<li class="log-line log-${line.s}" id="L${line.seq}"><span class="log-seq">${line.seq}</span><span class="log-text">${line.t}</span>${
    line.s === 'stdout' ? '' : html`<span class="visually-hidden"> (${line.s})</span>`
  }</li>`;
}

/** Links to the lines before and after those shown, and to the end (where the log is followed). */
function logNav(v: DeploymentView, here: string): Html {
  const { lines, lastSeq } = v.log;
  const first = lines[0]?.seq ?? lastSeq + 1;
  const last = lines.at(-1)?.seq ?? lastSeq;
  const earlier = first > 1 ? html`<a href="${here}?log_from=${Math.max(1, first - v.logPage)}#log">Earlier lines</a>` : '';
  const later = last < lastSeq ? html`<a href="${here}?log_from=${last + 1}#log">Later lines</a>` : '';
  const end = last < lastSeq ? html`<a href="${here}#log-end">Jump to end</a>` : html`<a href="#log-end" data-log-jump>Jump to end</a>`;
  return html`<p class="log-nav">${earlier} ${later} ${end} <span class="muted">${lastSeq} ${lastSeq === 1 ? 'line' : 'lines'}</span></p>`;
}

/**
 * The log (docs/product.md §10): stderr and system lines told apart, links to page through it without
 * JavaScript; while the deployment runs and the end is shown, the page's script follows it live
 * (`data-follow`, the /v1 event stream, signed in by the session cookie).
 */
function logPanel(v: DeploymentView, base: string): Html {
  const d = v.deployment;
  const here = `${base}/deployments/${d._id}`;
  const atEnd = (v.log.lines.at(-1)?.seq ?? v.log.lastSeq) >= v.log.lastSeq;
  const follow = atEnd && d.finished_at === null ? `/v1/projects/${v.project._id}/deployments/${d._id}/logs?after=${v.log.lastSeq}` : '';
  const empty = v.log.lastSeq === 0 ? html`<p class="empty" data-log-empty>No lines yet.</p>` : '';
  return html`<section class="panel" id="log" aria-labelledby="log-title">
<h2 id="log-title">Log</h2>
${logNav(v, here)}
${empty}<ol class="log" aria-live="off"${follow ? html` data-follow="${follow}"` : ''}>${v.log.lines.map(logLine)}</ol>
<p id="log-end" class="log-state muted" data-log-state>${follow ? 'Following the log as the deployment runs.' : d.finished_at ? 'The deployment has finished.' : ''}</p>
</section>`;
}

/** One deployment: what was deployed, its status (and the form to move it), its status history. */
export function deploymentView(v: DeploymentView): Html {
  const { project, deployment: d } = v;
  const base = `/dashboard/projects/${project._id}`;
  return html`<p class="crumb"><a href="/dashboard/projects">Projects</a> › <a href="${base}">${project.name}</a></p>
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
${statusForm(v, base)}
${v.canWrite && project.status === 'active' ? html`<p class="spaced"><a href="${base}/deployments/${d._id}/redeploy">Redeploy…</a></p>` : ''}
</section>
${logPanel(v, base)}
<section class="panel" id="history" aria-labelledby="history-title">
<h2 id="history-title">Status history</h2>
${history(v)}
</section>
<p><a href="${base}#deployments">Back to ${project.name}</a></p>`;
}
