import { hasScope } from '../../http/requireScope.ts';
import { LockEnvironmentBody, ReviewBody, RollbackBody } from '../../schemas/environments.ts';
import { sendPage, type DashboardDeps } from '../context.ts';
import { str, type FormValues } from '../forms.ts';
import { success, type PageRouter, type WithParams } from '../pageRouter.ts';
import { environmentPage } from '../views/environments.ts';
import { actorsOf, changeSummary } from '../views/release.ts';

const HISTORY_LIMIT = 20;

const projectPath = (id: string) => `/dashboard/projects/${encodeURIComponent(id)}`;
const environmentPath = (ctx: WithParams<'id' | 'name'>) => `${projectPath(ctx.params.id)}/environments/${encodeURIComponent(ctx.params.name)}`;
// A review from the list of pending ones goes back there; from the deployment's page, back to it.
const reviewBack = (ctx: WithParams<'id' | 'deploymentId'>, form: FormValues) =>
  str(form, 'return') === 'environments' ? `${projectPath(ctx.params.id)}/environments` : `${projectPath(ctx.params.id)}/deployments/${encodeURIComponent(ctx.params.deploymentId)}`;

/**
 * docs/product.md §9 on the dashboard: an environment's page (current deployment, history, lock, roll
 * back) and the review buttons (Approve, Reject). The project's Environments tab is the project page's
 * (pages/project.ts).
 */
export function registerEnvironmentPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, deployments, environments, dashboardClient } = deps.services;

  pages.get('/projects/:id/environments/:name', 'read', async (ctx, { principal, viewer }) => {
    const project = await projects.get(principal, ctx.params.id);
    const environment = await environments.get(principal, project._id, ctx.params.name);
    const history = await deployments.list(principal, project._id, { environment: environment.name }, { page: 1, per_page: HISTORY_LIMIT });
    const id = environment.current_deployment_id;
    const live = id ? (history.items.find((d) => d._id === id) ?? (await deployments.get(principal, project._id, id).catch(() => null))) : null;
    const names = await dashboardClient.actorNames(principal.accountId, actorsOf([live, ...history.items]));
    const release = { now: dashboardClient.now(), names };
    const body = environmentPage({ project, environment, history: history.items, live, release, csrf: viewer.csrf, canWrite: hasScope(principal, 'write') });
    sendPage(ctx, config, { title: `${environment.name} · ${project.name}`, body });
  });

  pages.form('/projects/:id/environments/:name/lock', {
    scope: 'write',
    schema: LockEnvironmentBody,
    fields: (form) => ({ reason: str(form, 'reason') }),
    run: (ctx, input, { principal }) => environments.setLock(principal, ctx.params.id, ctx.params.name, input.reason),
    answer: (e, ctx) => success(environmentPath(ctx), `${e.name} is locked.`),
    refused: { back: (ctx) => environmentPath(ctx), message: 'The environment could not be locked.' },
  });

  pages.form('/projects/:id/environments/:name/unlock', {
    scope: 'write',
    run: (ctx, _input, { principal }) => environments.setLock(principal, ctx.params.id, ctx.params.name, null),
    answer: (e, ctx) => success(environmentPath(ctx), `${e.name} is unlocked.`),
  });

  // The confirmation says what changes, from the commit live now to the one it goes back to; the form
  // posts that deployment's id, so what runs is what was confirmed (409 if it no longer may be).
  pages.confirm('/projects/:id/environments/:name/rollback', 'write', async (ctx, { principal }) => {
    const project = await projects.get(principal, ctx.params.id);
    const { current, target } = await deployments.rollbackPlan(principal, project._id, ctx.params.name);
    const names = await dashboardClient.actorNames(principal.accountId, [current.created_by, target.created_by]);
    const now = dashboardClient.now();
    return {
      page: `Roll back ${target.environment}`,
      crumb: project.name,
      title: `Roll back ${target.environment}?`,
      message: changeSummary({ environment: target.environment, from: current, to: target, names, now }),
      action: `${environmentPath(ctx)}/rollback`,
      hidden: { deployment_id: target._id },
      button: 'Roll back',
      cancelHref: environmentPath(ctx),
    };
  });

  pages.form('/projects/:id/environments/:name/rollback', {
    scope: 'write',
    schema: RollbackBody,
    fields: (form) => (str(form, 'deployment_id') ? { deployment_id: str(form, 'deployment_id') } : {}),
    run: (ctx, input, { principal }) => deployments.rollback(principal, ctx.params.id, ctx.params.name, input),
    answer: (d) => success(`${projectPath(d.project_id)}/deployments/${d._id}`, `Rollback of ${d.environment} to ${d.commit_sha ? `commit ${d.commit_sha.slice(0, 7)}` : d.branch} created (${d.status}).`),
    refused: { back: (ctx) => environmentPath(ctx), message: 'The environment could not be rolled back.' },
  });

  pages.form('/projects/:id/deployments/:deploymentId/review', {
    scope: 'write',
    schema: ReviewBody,
    fields: (form) => ({ decision: str(form, 'decision') }),
    run: (ctx, input, { principal }) => deployments.review(principal, ctx.params.id, ctx.params.deploymentId, input),
    answer: (r, ctx, { form }) => success(reviewBack(ctx, form), r.decision === 'approve' ? 'Approved.' : 'Rejected.'),
    refused: { back: reviewBack, message: 'The review was not recorded.' },
  });
}
