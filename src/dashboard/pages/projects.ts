import type { Context } from 'koa';
import { hasScope } from '../../http/requireScope.ts';
import { html } from '../../lib/html.ts';
import { CreateProjectBody, UpdateProjectBody } from '../../schemas/projects.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { intParam, str, type FormState } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { projectListView } from '../views/projects.ts';

/**
 * Projects: the list (paged) with a create form, status changes and deletion with a confirmation step.
 * Every action goes through ProjectService with the same scope rule as its /v1 route.
 */
export function registerProjectPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, deployments, dashboardClient } = deps.services;
  const projectPath = (id: string) => `/dashboard/projects/${encodeURIComponent(id)}`;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const page = intParam(ctx.query.page, 1);
    const perPage = intParam(ctx.query.per_page, 20, 100);
    const { items, total } = await projects.list(state.principal, { page, per_page: perPage });
    const canWrite = hasScope(state.principal, 'write');
    // Each project's last deployment (one indexed read per project on the page, at most 100).
    const last = await Promise.all(items.map(async (p) => (await deployments.list(state.principal, p._id, {}, { page: 1, per_page: 1 })).items[0] ?? null));
    const names = await dashboardClient.actorNames(state.principal.accountId, last.flatMap((d) => (d ? [d.created_by] : [])));
    const release = { now: dashboardClient.now(), names };
    sendPage(ctx, config, { title: 'Projects', status, body: projectListView({ csrf: state.viewer.csrf, canWrite, items, last, release, page, perPage, total, form }) });
  }

  pages.get('/projects', 'read', (ctx) => showList(ctx));

  pages.form('/projects', {
    scope: 'write',
    schema: CreateProjectBody,
    fields: (form) => ({ name: str(form, 'name'), deploy_target: str(form, 'deploy_target') || null }),
    run: (_ctx, input, { principal }) => projects.create(principal, input),
    answer: (project) => success(projectPath(project._id), `Project “${project.name}” created.`),
    refused: { fields: ['name', 'deploy_target'], conflictField: 'name', rerender: showList },
  });

  pages.form('/projects/:id/status', {
    scope: 'write',
    schema: UpdateProjectBody,
    fields: (form) => ({ status: str(form, 'status') }),
    run: (ctx, input, { principal }) => projects.update(principal, ctx.params.id, { status: input.status }),
    answer: (project) => success(projectPath(project._id), `Project “${project.name}” is now ${project.status}.`),
    refused: { back: (ctx) => projectPath(ctx.params.id), message: 'The status could not be changed.' },
  });

  pages.confirm('/projects/:id/delete', 'admin', async (ctx, { principal }) => {
    const project = await projects.get(principal, ctx.params.id);
    return {
      page: `Delete ${project.name}`,
      crumb: 'Projects',
      title: `Delete project “${project.name}”?`,
      message: html`<p>This deletes the project with all its deployments and configuration variables, and revokes its API keys. It cannot be undone.</p>`,
      action: `/dashboard/projects/${project._id}/delete`,
      button: 'Delete project',
      cancelHref: `/dashboard/projects/${project._id}`,
    };
  });

  pages.form('/projects/:id/delete', {
    scope: 'admin',
    run: async (ctx, _input, { principal }) => {
      const project = await projects.get(principal, ctx.params.id);
      await projects.delete(principal, project._id);
      return project;
    },
    answer: (project) => success('/dashboard/projects', `Project “${project.name}” deleted.`),
  });
}
