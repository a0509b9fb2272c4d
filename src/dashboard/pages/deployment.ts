import { hasScope } from '../../http/requireScope.ts';
import { sendPage, type DashboardDeps } from '../context.ts';
import { intParam } from '../forms.ts';
import type { PageRouter } from '../pageRouter.ts';
import { html } from '../../lib/html.ts';
import { deploymentView } from '../views/deployment.ts';
import { reviewsPanel } from '../views/environments.ts';

/** A deployment has a handful of status changes (queued → … → superseded); one page holds them all. */
const HISTORY_LIMIT = 100;
/** Log lines a deployment's page shows at once (then links to earlier and later lines). */
const LOG_PAGE = 500;

/**
 * One deployment: what was deployed, its current status, and its status history. The history is read
 * from the audit log (`deployment.created` and `deployment.status_changed` events about it), the one
 * record of who changed what and when: no second copy is stored on the deployment. The log is written
 * after each change, so a crash in between can leave a step out; the current status shown above the
 * history always comes from the deployment itself.
 */
export function registerDeploymentPage(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, deployments, events, deploymentLogs, dashboardClient } = deps.services;

  pages.get('/projects/:id/deployments/:deploymentId', 'read', async (ctx, { principal, viewer }) => {
    const project = await projects.get(principal, ctx.params.id);
    const deployment = await deployments.get(principal, project._id, ctx.params.deploymentId);
    const found = await events.list(principal, { project_id: project._id, deployment_id: deployment._id }, { page: 1, per_page: HISTORY_LIMIT });
    const history = found.items.filter((e) => e.type.startsWith('deployment.')).reverse();
    const reviews = await deployments.listReviews(principal, project._id, deployment._id, { page: 1, per_page: HISTORY_LIMIT });
    const canReview = principal.kind === 'user' && hasScope(principal, 'write');
    const reviewerNames = await dashboardClient.actorNames(principal.accountId, reviews.items.map((r) => r.reviewer));
    // docs/product.md §10: the log's last lines, or those from line `log_from` on (paging without JavaScript).
    const logFrom = intParam(ctx.query.log_from, 0);
    const log = await deploymentLogs.window(principal, project._id, deployment._id, logFrom ? logFrom - 1 : undefined, LOG_PAGE);
    sendPage(ctx, config, {
      title: `Deployment ${deployment.environment} · ${project.name}`,
      body: html`${deploymentView({ project, deployment, history, log, logPage: LOG_PAGE, csrf: viewer.csrf, canWrite: hasScope(principal, 'write'), isAdmin: hasScope(principal, 'admin') })}
${reviewsPanel(project, deployment, reviews.items, viewer.csrf, canReview, reviewerNames)}`,
    });
  });
}
