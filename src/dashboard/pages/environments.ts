import { hasScope } from '../../http/requireScope.ts';
import { LockEnvironmentBody, ReviewBody, RollbackBody } from '../../schemas/environments.ts';
import { sendPage, type DashboardDeps } from '../context.ts';
import { str, type FormValues } from '../forms.ts';
import { success, type PageRouter, type WithParams } from '../pageRouter.ts';
import { environmentPage } from '../views/environments.ts';

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
  const { projects, deployments, environments } = deps.services;

  pages.get('/projects/:id/environments/:name', 'read', async (ctx, { principal, viewer }) => {
    const project = await projects.get(principal, ctx.params.id);
    const environment = await environments.get(principal, project._id, ctx.params.name);
    const history = await deployments.list(principal, project._id, { environment: environment.name }, { page: 1, per_page: HISTORY_LIMIT });
    const body = environmentPage({ project, environment, history: history.items, csrf: viewer.csrf, canWrite: hasScope(principal, 'write') });
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

  pages.form('/projects/:id/environments/:name/rollback', {
    scope: 'write',
    schema: RollbackBody,
    fields: () => ({}),
    run: (ctx, input, { principal }) => deployments.rollback(principal, ctx.params.id, ctx.params.name, input),
    answer: (d) => success(`${projectPath(d.project_id)}/deployments/${d._id}`, `Rollback of ${d.environment} to ${d.source_deployment_id ?? ''} created (${d.status}).`),
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
