import { DEPLOY_TARGETS, type ProjectStatus } from '../../domain/projects.ts';
import { html, type Html } from '../../lib/html.ts';
import type { ProjectDoc } from '../../services/projects.ts';
import { formProblem, selectField, textField, type FormState } from '../forms.ts';
import { csrfField, pagination, statusBadge } from '../layout.ts';
import type { DeploymentDoc } from '../../services/deployments.ts';
import { actorName, ago, took, whatIsDeployed, type ReleaseContext } from './release.ts';

export const TARGET_OPTIONS = [{ value: '', label: 'Not set' }, ...DEPLOY_TARGETS.map((t) => ({ value: t, label: t }))];

/** The buttons a project's status allows (docs/product.md §5: active ⇄ paused, → archived, archived → active). */
export const STATUS_ACTIONS: Record<ProjectStatus, { to: ProjectStatus; label: string }[]> = {
  active: [
    { to: 'paused', label: 'Pause' },
    { to: 'archived', label: 'Archive' },
  ],
  paused: [
    { to: 'active', label: 'Resume' },
    { to: 'archived', label: 'Archive' },
  ],
  archived: [{ to: 'active', label: 'Unarchive' }],
};

export interface ProjectListView {
  csrf: string;
  canWrite: boolean;
  items: ProjectDoc[];
  /** Each project's last deployment (same order as `items`), or null. */
  last: (DeploymentDoc | null)[];
  release: ReleaseContext;
  page: number;
  perPage: number;
  total: number;
  form?: FormState | undefined;
}

function newProjectForm(csrf: string, form: FormState | undefined): Html {
  return html`<section class="panel" aria-labelledby="new-project-title">
<h2 id="new-project-title">New project</h2>
${formProblem(form, { name: 'Name', deploy_target: 'Deploy target' })}
<form method="post" action="/dashboard/projects" novalidate>
${csrfField(csrf)}
<div class="form-grid">
${textField({ form: 'project', name: 'name', label: 'Name', state: form, required: true, maxlength: 100, hint: 'Unique in your account, ignoring case.' })}
${selectField({ form: 'project', name: 'deploy_target', label: 'Deploy target', state: form, options: TARGET_OPTIONS })}
</div>
<div class="form-actions"><button type="submit">Create project</button></div>
</form>
</section>`;
}

function lastDeployment(p: ProjectDoc, d: DeploymentDoc | null, r: ReleaseContext): Html {
  if (!d) return html`<span class="muted">None yet</span>`;
  return html`${statusBadge(d.status)} <a href="/dashboard/projects/${p._id}/deployments/${d._id}" aria-label="Last deployment of ${p.name}: ${d.environment}">${d.environment}</a> ${whatIsDeployed(d)}<br><span class="muted">by</span> ${actorName(d.created_by, r.names)}, ${ago(d.created_at, r.now)}${d.finished_at ? html`, <span class="muted">took</span> ${took(d)}` : ''}`;
}

function projectTable(v: ProjectListView): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Last deployment</th><th scope="col">Deploy target</th></tr></thead>
<tbody>
${v.items.map(
  (p, i) => html`<tr>
<td data-label="Name"><a href="/dashboard/projects/${p._id}">${p.name}</a></td>
<td data-label="Status">${statusBadge(p.status)}</td>
<td data-label="Last deploy" data-last-deployment>${lastDeployment(p, v.last[i] ?? null, v.release)}</td>
<td data-label="Target">${p.deploy_target ?? html`<span class="muted">—</span>`}</td>
</tr>`,
)}
</tbody></table></div>`;
}

/** Projects: the create form (write scope) above the paged list. */
export function projectListView(v: ProjectListView): Html {
  const pageHref = (n: number) => `/dashboard/projects?page=${n}${v.perPage === 20 ? '' : `&per_page=${v.perPage}`}`;
  return html`<h1>Projects</h1>
${v.canWrite ? newProjectForm(v.csrf, v.form) : ''}
<section class="panel" aria-labelledby="project-list-title">
<h2 id="project-list-title">All projects</h2>
${v.items.length ? projectTable(v) : html`<p class="empty">${v.page > 1 ? 'No projects on this page.' : 'No projects yet.'}</p>`}
${pagination(v.page, v.perPage, v.total, pageHref)}
</section>`;
}
