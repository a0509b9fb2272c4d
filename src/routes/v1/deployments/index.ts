import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { newId } from '../../../lib/ids.ts';
import { presentDeployment } from '../../../presenters/deployments.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import type { V1Deps } from '../deps.ts';
import { newDeployment, sendNewDeployment } from './created.ts';
import { DEPLOYMENT_EVENTS, followDeployments, registerDeploymentLogRoutes } from './logs.ts';
import { wantsEventStream } from '../../../http/eventStream.ts';
import { CreateDeploymentBody, Deployment, DeploymentList, DeploymentParams, ListDeploymentsQuery, RedeployBody, UpdateDeploymentBody } from '../../../schemas/deployments.ts';
import { DeploymentConfiguration, PageOnlyQuery, Review, ReviewBody, ReviewList } from '../../../schemas/environments.ts';
import { presentReview } from '../../../presenters/environments.ts';

const tags = ['Deployments'];

export function registerDeploymentRoutes(api: ApiRouter, deps: V1Deps): void {
  const { authenticate, idempotent, services, config } = deps;
  const { deployments } = services;

  api.get(
    '/projects/:project_id/deployments',
    {
      operationId: 'listDeployments',
      summary: 'List deployments of a project',
      description: `Newest first; filter by \`environment\`, \`status\`, \`branch\`. ${DEPLOYMENT_EVENTS}`,
      tags,
      success: { status: 200, description: 'A page of deployments, or (with `Accept: text/event-stream`) their changes as they happen.', schema: DeploymentList, eventStream: DEPLOYMENT_EVENTS },
    },
    authenticate,
    requireScope('read'),
    validate({ params: ProjectParams, query: ListDeploymentsQuery }),
    async (ctx: ApiContext<{ params: ProjectParams; query: ListDeploymentsQuery }>) => {
      if (wantsEventStream(ctx)) return await followDeployments(ctx, deps);
      const { page, per_page, environment, status, branch } = ctx.input.query;
      const filter = { ...(environment ? { environment } : {}), ...(status ? { status } : {}), ...(branch !== undefined ? { branch } : {}) };
      const { items, total } = await deployments.list(ctx.state.principal, ctx.input.params.project_id, filter, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentDeployment), total, { page, per_page });
    },
  );

  api.post(
    '/projects/:project_id/deployments',
    {
      operationId: 'createDeployment',
      summary: 'Create a deployment',
      description:
        'Queues a deployment of `branch` (optionally a `commit_sha`) to `environment`. Paused and archived projects refuse new deployments. The environment is made, without rules, if the project has none of that name; its rules apply: branch patterns (`branch_not_allowed`), a lock (`environment_locked`), freeze windows (`environment_frozen`, unless `override_freeze` with a `reason` and the admin scope), and with approvals or a wait timer the deployment starts `waiting`.',
      tags,
      success: newDeployment('The queued (or waiting) deployment.'),
      errors: ['project_not_active', 'branch_not_allowed', 'environment_locked', 'environment_frozen'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ProjectParams, body: CreateDeploymentBody }),
    idempotent({ newResourceId: () => newId('deployment') }),
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateDeploymentBody }>) => {
      const deployment = await deployments.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendNewDeployment(ctx, config.publicUrl, deployment);
    },
  );

  api.get(
    '/projects/:project_id/deployments/:deployment_id',
    { operationId: 'getDeployment', summary: 'Get a deployment', tags, success: { status: 200, description: 'The deployment.', schema: Deployment } },
    authenticate,
    requireScope('read'),
    validate({ params: DeploymentParams }),
    async (ctx: ApiContext<{ params: DeploymentParams }>) => {
      ctx.body = presentDeployment(await deployments.get(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.deployment_id));
    },
  );

  api.patch(
    '/projects/:project_id/deployments/:deployment_id',
    {
      operationId: 'updateDeployment',
      summary: 'Report deployment progress',
      description:
        'How an external deployer reports progress: `queued` → `building` → `deploying` → `succeeded`, or `failed`/`canceled` from any unfinished state. Other moves are `invalid_transition`. Repeating the current status only updates `status_message`/`url`.',
      tags,
      success: { status: 200, description: 'The updated deployment.', schema: Deployment },
      errors: ['invalid_transition', 'project_not_active', 'conflict', 'environment_busy'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: DeploymentParams, body: UpdateDeploymentBody }),
    async (ctx: ApiContext<{ params: DeploymentParams; body: UpdateDeploymentBody }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      ctx.body = presentDeployment(await deployments.updateStatus(ctx.state.principal, project_id, deployment_id, ctx.input.body));
    },
  );

  api.post(
    '/projects/:project_id/deployments/:deployment_id/redeploy',
    {
      operationId: 'redeployDeployment',
      summary: 'Redeploy or promote a deployment',
      description:
        'A new deployment of the same branch and commit: to its own environment (kind `redeploy`) or to `environment` (kind `promote`), through the target environment’s rules like any deployment.',
      tags,
      success: newDeployment('The new deployment.'),
      errors: ['project_not_active', 'branch_not_allowed', 'environment_locked', 'environment_frozen'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: DeploymentParams, body: RedeployBody }),
    idempotent({ newResourceId: () => newId('deployment') }),
    async (ctx: ApiContext<{ params: DeploymentParams; body: RedeployBody }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      const deployment = await deployments.redeploy(ctx.state.principal, project_id, deployment_id, ctx.input.body, ctx.state.resourceId);
      sendNewDeployment(ctx, config.publicUrl, deployment);
    },
  );

  api.post(
    '/projects/:project_id/deployments/:deployment_id/reviews',
    {
      operationId: 'reviewDeployment',
      summary: 'Approve or reject a waiting deployment',
      description:
        'By a reviewer of the environment (its `reviewers`; without any, an admin or owner), once each (`conflict` the second time). Under `prevent_self_review` the creator cannot approve. One reject ends the deployment as `rejected`; when the approvals are met and the wait timer has run out, the service queues it by itself within 5 seconds.',
      tags,
      success: { status: 201, description: 'The review.', schema: Review },
      errors: ['conflict', 'invalid_transition', 'project_not_active'],
    },
    authenticate,
    authorizeFor('review', 'deployment'),
    requireScope('write'),
    validate({ params: DeploymentParams, body: ReviewBody }),
    async (ctx: ApiContext<{ params: DeploymentParams; body: ReviewBody }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      const review = await deployments.review(ctx.state.principal, project_id, deployment_id, ctx.input.body);
      ctx.status = 201;
      ctx.body = presentReview(review);
    },
  );

  api.get(
    '/projects/:project_id/deployments/:deployment_id/reviews',
    { operationId: 'listDeploymentReviews', summary: 'List the reviews of a deployment', description: 'Oldest first.', tags, success: { status: 200, description: 'A page of reviews.', schema: ReviewList } },
    authenticate,
    requireScope('read'),
    validate({ params: DeploymentParams, query: PageOnlyQuery }),
    async (ctx: ApiContext<{ params: DeploymentParams; query: PageOnlyQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { project_id, deployment_id } = ctx.input.params;
      const { items, total } = await deployments.listReviews(ctx.state.principal, project_id, deployment_id, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentReview), total, { page, per_page });
    },
  );

  api.get(
    '/projects/:project_id/deployments/:deployment_id/configuration',
    {
      operationId: 'getDeploymentConfiguration',
      summary: 'The configuration a deployment runs with',
      description:
        'Every variable of the deployment’s environment, secret values in clear: to the credential that created the deployment or an admin (else `forbidden`), and only while it is `queued`, `building` or `deploying` (else `deployment_not_active`). Each answer is recorded as a `configuration.released` event (keys only, never values).',
      tags,
      success: { status: 200, description: 'The variables.', schema: DeploymentConfiguration },
      errors: ['deployment_not_active', 'secret_unreadable'],
    },
    authenticate,
    requireScope('read'),
    validate({ params: DeploymentParams }),
    async (ctx: ApiContext<{ params: DeploymentParams }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      const { deployment, variables } = await deployments.configuration(ctx.state.principal, project_id, deployment_id);
      ctx.body = { deployment_id: deployment._id, environment: deployment.environment, variables };
    },
  );

  // docs/product.md §10: the deployment's log.
  registerDeploymentLogRoutes(api, deps);
}
