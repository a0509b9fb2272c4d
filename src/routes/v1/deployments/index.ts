import { requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentDeployment } from '../../../presenters/deployments.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import type { V1Deps } from '../deps.ts';
import { DEPLOYMENT_EVENTS, followDeployments, registerDeploymentLogRoutes } from './logs.ts';
import { wantsEventStream } from '../../../http/eventStream.ts';
import { CreateDeploymentBody, Deployment, DeploymentList, DeploymentParams, ListDeploymentsQuery, UpdateDeploymentBody } from '../../../schemas/deployments.ts';

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
      description: 'Queues a deployment of `branch` (optionally a `commit_sha`) to `environment`. Paused and archived projects refuse new deployments.',
      tags,
      success: { status: 201, description: 'The queued deployment.', schema: Deployment, headers: { Location: { description: 'URL of the new deployment.', schema: { type: 'string' } } } },
      errors: ['project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ProjectParams, body: CreateDeploymentBody }),
    idempotent({ newResourceId: () => newId('deployment') }),
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateDeploymentBody }>) => {
      const deployment = await deployments.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/projects/${deployment.project_id}/deployments/${deployment._id}`, presentDeployment(deployment));
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
      errors: ['invalid_transition', 'project_not_active', 'conflict'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: DeploymentParams, body: UpdateDeploymentBody }),
    async (ctx: ApiContext<{ params: DeploymentParams; body: UpdateDeploymentBody }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      ctx.body = presentDeployment(await deployments.updateStatus(ctx.state.principal, project_id, deployment_id, ctx.input.body));
    },
  );

  // docs/product.md §10: the deployment's log.
  registerDeploymentLogRoutes(api, deps);
}
