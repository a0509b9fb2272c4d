import type Router from '@koa/router';
import type { Context } from 'koa';
import { assertScope, hasScope } from '../../http/requireScope.ts';
import { validationFailed } from '../../errors.ts';
import { issuesToDetails } from '../../schemas/parse.ts';
import { DEPLOY_TARGETS, type ProjectStatus } from '../../domain/projects.ts';
import { CreateProjectBody, UpdateProjectBody } from '../../schemas/projects.ts';
import { dash, seeOther, sendPage, type DashboardDeps } from '../context.ts';
import { formProblem, intParam, refusal, selectField, str, textField, type FormState } from '../forms.ts';
import { html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, statusBadge } from '../layout.ts';

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

/**
 * Projects: the list (paged) with a create form, status changes and deletion with a confirmation step.
 * Every action goes through ProjectService with the same scope rule as its /v1 route.
 */
export function registerProjectPages(router: Router, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects } = deps.services;

  async function renderList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const page = intParam(ctx.query.page, 1);
    const perPage = intParam(ctx.query.per_page, 20, 100);
    const { items, total } = await projects.list(state.principal, { page, per_page: perPage });
    const canWrite = hasScope(state.principal, 'write');
    const pageHref = (n: number) => `/dashboard/projects?page=${n}${perPage === 20 ? '' : `&per_page=${perPage}`}`;
    sendPage(ctx, config, {
      title: 'Projects',
      active: 'projects',
      status,
      body: html`<h1>Projects</h1>
${
  canWrite
    ? html`<section class="panel" aria-labelledby="new-project-title">
<h2 id="new-project-title">New project</h2>
${formProblem(form, { name: 'Name', deploy_target: 'Deploy target' })}
<form method="post" action="/dashboard/projects" novalidate>
${csrfField(state.viewer.csrf)}
<div class="form-grid">
${textField({ form: 'project', name: 'name', label: 'Name', state: form, required: true, maxlength: 100, hint: 'Unique in your account, ignoring case.' })}
${selectField({ form: 'project', name: 'deploy_target', label: 'Deploy target', state: form, options: TARGET_OPTIONS })}
</div>
<div class="form-actions"><button type="submit">Create project</button></div>
</form>
</section>`
    : ''
}
<section class="panel" aria-labelledby="project-list-title">
<h2 id="project-list-title">All projects</h2>
${
  items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Deploy target</th><th scope="col">Created</th></tr></thead>
<tbody>
${items.map(
  (p) => html`<tr>
<td data-label="Name"><a href="/dashboard/projects/${p._id}">${p.name}</a></td>
<td data-label="Status">${statusBadge(p.status)}</td>
<td data-label="Target">${p.deploy_target ?? html`<span class="muted">—</span>`}</td>
<td data-label="Created">${dateTime(p.created_at)}</td>
</tr>`,
)}
</tbody></table></div>`
    : html`<p class="empty">${page > 1 ? 'No projects on this page.' : 'No projects yet.'}</p>`
}
${pagination(page, perPage, total, pageHref)}
</section>`,
    });
  }

  router.get('/projects', async (ctx) => {
    assertScope(dash(ctx).principal, 'read');
    await renderList(ctx);
  });

  router.post('/projects', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const form = state.form;
    try {
      const parsed = CreateProjectBody.safeParse({ name: str(form, 'name'), deploy_target: str(form, 'deploy_target') || null });
      if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error));
      const project = await projects.create(state.principal, parsed.data);
      seeOther(ctx, config, `/dashboard/projects/${project._id}`, { kind: 'success', text: `Project “${project.name}” created.` });
    } catch (err) {
      const refused = refusal(err, { fields: ['name', 'deploy_target'], conflictField: 'name' });
      if (!refused) throw err;
      await renderList(ctx, { values: form, ...refused }, refused.status);
    }
  });

  router.post('/projects/:id/status', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'write');
    const id = ctx.params.id!;
    const parsed = UpdateProjectBody.safeParse({ status: str(state.form, 'status') });
    if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error), 'Choose a valid status.');
    try {
      const project = await projects.update(state.principal, id, { status: parsed.data.status });
      seeOther(ctx, config, `/dashboard/projects/${project._id}`, { kind: 'success', text: `Project “${project.name}” is now ${project.status}.` });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, `/dashboard/projects/${encodeURIComponent(id)}`, { kind: 'error', text: refused.message ?? 'The status could not be changed.' });
    }
  });

  router.get('/projects/:id/delete', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'admin');
    const project = await projects.get(state.principal, ctx.params.id!);
    sendPage(ctx, config, {
      title: `Delete ${project.name}`,
      active: 'projects',
      body: confirmBody({
        crumb: 'Projects',
        title: `Delete project “${project.name}”?`,
        message: html`<p>This deletes the project with all its deployments and configuration variables, and revokes its API keys. It cannot be undone.</p>`,
        action: `/dashboard/projects/${project._id}/delete`,
        button: 'Delete project',
        cancelHref: `/dashboard/projects/${project._id}`,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/projects/:id/delete', async (ctx) => {
    const state = dash(ctx);
    assertScope(state.principal, 'admin');
    const project = await projects.get(state.principal, ctx.params.id!);
    await projects.delete(state.principal, project._id);
    seeOther(ctx, config, '/dashboard/projects', { kind: 'success', text: `Project “${project.name}” deleted.` });
  });
}
