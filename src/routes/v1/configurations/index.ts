import type { Next } from 'koa';
import { requireScope } from '../../../http/requireScope.ts';
import { documented, type ApiContext, type ApiMiddleware } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentConfiguration } from '../../../presenters/configurations.ts';
import type { V1Deps } from '../deps.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import {
  Configuration,
  ConfigurationList,
  ConfigurationParams,
  CreateConfigurationBody,
  GetConfigurationQuery,
  ListConfigurationsQuery,
  UpdateConfigurationBody,
} from '../../../schemas/configurations.ts';

const tags = ['Configurations'];

/**
 * `?reveal=true` needs admin, judged exactly like `requireScope('admin')` (the role first, then the
 * scope). An API key whose scopes include admin may reveal its own project's secrets: docs/product.md §3 lists
 * revealing under admin without excluding API keys (unlike users, keys and clients).
 */
function revealNeedsAdmin(): ApiMiddleware {
  const admin = requireScope('admin');
  const middleware = async (ctx: ApiContext<{ query: { reveal: boolean } }>, next: Next) => {
    if (ctx.input.query.reveal) return await admin(ctx, next);
    return await next();
  };
  return documented(middleware, (op) => {
    op.errors.add('forbidden').add('insufficient_scope');
    op.notes.push('`?reveal=true` needs the admin scope (and, for a user, the admin or owner role); without it secret values are `null`.');
  });
}

export function registerConfigurationRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { configurations } = services;

  api.get(
    '/projects/:project_id/configurations',
    {
      operationId: 'listConfigurations',
      summary: 'List configuration variables of a project',
      description: 'Ordered by environment, then key; filter by `environment`.',
      tags,
      success: { status: 200, description: 'A page of configuration variables.', schema: ConfigurationList },
      errors: ['secret_unreadable'],
    },
    authenticate,
    requireScope('read'),
    validate({ params: ProjectParams, query: ListConfigurationsQuery }),
    revealNeedsAdmin(),
    async (ctx: ApiContext<{ params: ProjectParams; query: ListConfigurationsQuery }>) => {
      const { page, per_page, environment, reveal } = ctx.input.query;
      const { items, total } = await configurations.list(ctx.state.principal, ctx.input.params.project_id, { environment }, { page, per_page }, { reveal });
      sendPage(ctx, config.publicUrl, items.map(presentConfiguration), total, { page, per_page });
    },
  );

  api.post(
    '/projects/:project_id/configurations',
    {
      operationId: 'createConfiguration',
      summary: 'Create a configuration variable',
      description:
        'Adds `key` to `environment`. With `secret: true` the value is encrypted at rest and is never returned again except through `?reveal=true` (admin). Archived projects refuse it.',
      tags,
      success: created('The new variable (a secret value is `null`).', Configuration, 'URL of the new variable.'),
      errors: ['conflict', 'project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ProjectParams, body: CreateConfigurationBody }),
    // The value may be a secret: it is left out of the stored fingerprint.
    idempotent({ secretRequestFields: ['value'], newResourceId: () => newId('configuration') }),
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateConfigurationBody }>) => {
      const doc = await configurations.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/projects/${doc.project_id}/configurations/${doc._id}`, presentConfiguration(doc));
    },
  );

  api.get(
    '/projects/:project_id/configurations/:configuration_id',
    {
      operationId: 'getConfiguration',
      summary: 'Get a configuration variable',
      tags,
      success: { status: 200, description: 'The variable.', schema: Configuration },
      errors: ['secret_unreadable'],
    },
    authenticate,
    requireScope('read'),
    validate({ params: ConfigurationParams, query: GetConfigurationQuery }),
    revealNeedsAdmin(),
    async (ctx: ApiContext<{ params: ConfigurationParams; query: GetConfigurationQuery }>) => {
      const { project_id, configuration_id } = ctx.input.params;
      ctx.body = presentConfiguration(await configurations.get(ctx.state.principal, project_id, configuration_id, { reveal: ctx.input.query.reveal }));
    },
  );

  api.patch(
    '/projects/:project_id/configurations/:configuration_id',
    {
      operationId: 'updateConfiguration',
      summary: 'Update a configuration variable',
      description:
        'Changes `value` and/or makes the variable secret. A secret cannot be made non-secret (`validation_failed` on `secret`): delete it and create it again. Archived projects refuse it.',
      tags,
      success: { status: 200, description: 'The updated variable (a secret value is `null`).', schema: Configuration },
      errors: ['conflict', 'project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ConfigurationParams, body: UpdateConfigurationBody }),
    async (ctx: ApiContext<{ params: ConfigurationParams; body: UpdateConfigurationBody }>) => {
      const { project_id, configuration_id } = ctx.input.params;
      ctx.body = presentConfiguration(await configurations.update(ctx.state.principal, project_id, configuration_id, ctx.input.body));
    },
  );

  api.delete(
    '/projects/:project_id/configurations/:configuration_id',
    {
      operationId: 'deleteConfiguration',
      summary: 'Delete a configuration variable',
      description: 'Archived projects refuse it.',
      tags,
      success: { status: 204, description: 'Deleted.' },
      errors: ['project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ConfigurationParams }),
    async (ctx: ApiContext<{ params: ConfigurationParams }>) => {
      await configurations.delete(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.configuration_id);
      ctx.status = 204;
    },
  );
}
