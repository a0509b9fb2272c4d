import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentEnvironment } from '../../../presenters/environments.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import {
  CreateEnvironmentBody,
  EnvironmentList,
  EnvironmentObject,
  EnvironmentParams,
  ListEnvironmentsQuery,
  LockEnvironmentBody,
  RollbackBody,
  UpdateEnvironmentBody,
} from '../../../schemas/environments.ts';
import type { V1Deps } from '../deps.ts';
import { newDeployment, sendNewDeployment } from '../deployments/created.ts';

const tags = ['Environments'];

/** docs/product.md §9: a project's environments, their protection rules, locks and rollbacks. */
export function registerEnvironmentRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { environments, deployments } = services;
  const path = (env: { project_id: string; name: string }) => `/v1/projects/${env.project_id}/environments/${env.name}`;

  api.get(
    '/projects/:project_id/environments',
    {
      operationId: 'listEnvironments',
      summary: 'List environments of a project',
      description: 'Ordered by name. Environments that deployments went to before environments existed appear too, without rules.',
      tags,
      success: { status: 200, description: 'A page of environments.', schema: EnvironmentList },
    },
    authenticate,
    requireScope('read'),
    validate({ params: ProjectParams, query: ListEnvironmentsQuery }),
    async (ctx: ApiContext<{ params: ProjectParams; query: ListEnvironmentsQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await environments.list(ctx.state.principal, ctx.input.params.project_id, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentEnvironment), total, { page, per_page });
    },
  );

  api.post(
    '/projects/:project_id/environments',
    {
      operationId: 'createEnvironment',
      summary: 'Create an environment',
      description: 'With its rules: protection (approvals, reviewers, wait timer, branch patterns), `serial`, `cancel_superseded`, freeze windows. A name the project already has → `conflict`.',
      tags,
      success: created('The environment.', EnvironmentObject, 'URL of the environment.'),
      errors: ['conflict', 'project_not_active'],
    },
    authenticate,
    authorizeFor('create', 'environment'),
    requireScope('admin'),
    validate({ params: ProjectParams, body: CreateEnvironmentBody }),
    idempotent({ newResourceId: () => newId('environment') }),
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateEnvironmentBody }>) => {
      const env = await environments.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, path(env), presentEnvironment(env));
    },
  );

  api.get(
    '/projects/:project_id/environments/:name',
    { operationId: 'getEnvironment', summary: 'Get an environment', tags, success: { status: 200, description: 'The environment, with the deployment live in it.', schema: EnvironmentObject } },
    authenticate,
    requireScope('read'),
    validate({ params: EnvironmentParams }),
    async (ctx: ApiContext<{ params: EnvironmentParams }>) => {
      ctx.body = presentEnvironment(await environments.get(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.name));
    },
  );

  api.patch(
    '/projects/:project_id/environments/:name',
    {
      operationId: 'updateEnvironment',
      summary: 'Change an environment’s rules',
      description: 'Fields sent replace the stored ones; within `protection`, only the fields sent change. Deployments already waiting keep the approvals and wait timer they were created under.',
      tags,
      success: { status: 200, description: 'The environment.', schema: EnvironmentObject },
      errors: ['project_not_active', 'conflict'],
    },
    authenticate,
    authorizeFor('update', 'environment'),
    requireScope('admin'),
    validate({ params: EnvironmentParams, body: UpdateEnvironmentBody }),
    async (ctx: ApiContext<{ params: EnvironmentParams; body: UpdateEnvironmentBody }>) => {
      ctx.body = presentEnvironment(await environments.update(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.name, ctx.input.body));
    },
  );

  api.delete(
    '/projects/:project_id/environments/:name',
    {
      operationId: 'deleteEnvironment',
      summary: 'Delete an environment',
      description: 'Its rules go; its deployments stay. A new deployment to the name makes it again, without rules.',
      tags,
      success: { status: 204, description: 'Deleted.' },
      errors: ['project_not_active'],
    },
    authenticate,
    authorizeFor('delete', 'environment'),
    requireScope('admin'),
    validate({ params: EnvironmentParams }),
    async (ctx: ApiContext<{ params: EnvironmentParams }>) => {
      await environments.delete(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.name);
      ctx.status = 204;
    },
  );

  api.post(
    '/projects/:project_id/environments/:name/lock',
    {
      operationId: 'lockEnvironment',
      summary: 'Lock an environment',
      description: 'A locked environment refuses new deployments (`environment_locked`) until it is unlocked. Locking again replaces the reason.',
      tags,
      success: { status: 200, description: 'The locked environment.', schema: EnvironmentObject },
      errors: ['project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: EnvironmentParams, body: LockEnvironmentBody }),
    async (ctx: ApiContext<{ params: EnvironmentParams; body: LockEnvironmentBody }>) => {
      ctx.body = presentEnvironment(await environments.setLock(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.name, ctx.input.body.reason));
    },
  );

  api.delete(
    '/projects/:project_id/environments/:name/lock',
    { operationId: 'unlockEnvironment', summary: 'Unlock an environment', tags, success: { status: 200, description: 'The unlocked environment.', schema: EnvironmentObject }, errors: ['project_not_active'] },
    authenticate,
    requireScope('write'),
    validate({ params: EnvironmentParams }),
    async (ctx: ApiContext<{ params: EnvironmentParams }>) => {
      ctx.body = presentEnvironment(await environments.setLock(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.name, null));
    },
  );

  api.post(
    '/projects/:project_id/environments/:name/rollback',
    {
      operationId: 'rollbackEnvironment',
      summary: 'Roll an environment back',
      description:
        'Redeploys the deployment that succeeded before the current one (or `deployment_id`, which must have succeeded in this environment) as a new deployment of kind `rollback`, through the environment’s rules like any deployment.',
      tags,
      success: newDeployment('The new deployment.'),
      errors: ['conflict', 'project_not_active', 'branch_not_allowed', 'environment_locked', 'environment_frozen'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: EnvironmentParams, body: RollbackBody }),
    idempotent({ newResourceId: () => newId('deployment') }),
    async (ctx: ApiContext<{ params: EnvironmentParams; body: RollbackBody }>) => {
      const { project_id, name } = ctx.input.params;
      const deployment = await deployments.rollback(ctx.state.principal, project_id, name, ctx.input.body, ctx.state.resourceId);
      sendNewDeployment(ctx, config.publicUrl, deployment);
    },
  );
}
