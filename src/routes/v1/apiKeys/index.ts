import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentApiKey, presentIssuedApiKey } from '../../../presenters/apiKeys.ts';
import type { V1Deps } from '../deps.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import { ApiKey, ApiKeyList, ApiKeyParams, CreateApiKeyBody, IssuedApiKey, ListApiKeysQuery, RotateApiKeyBody } from '../../../schemas/apiKeys.ts';

const tags = ['API keys'];

/**
 * docs/product.md §2, §3, §5: API keys of a project, managed with the admin scope by an admin or owner (or a
 * confidential client with an admin token), never by an API key. The secret is in the create and
 * rotate responses only.
 */
export function registerApiKeyRoutes(api: ApiRouter, { authenticate, idempotent, services, config, clock }: V1Deps): void {
  const { apiKeys } = services;
  const idempotentKeyIssue = idempotent({ shownOnceResponseFields: ['key'], newResourceId: () => newId('apiKey') });
  // A rotation creates nothing new: a run after a failure rotates again (the secret is shown once).
  const idempotentRotation = idempotent({ shownOnceResponseFields: ['key'] });

  api.get(
    '/projects/:project_id/api_keys',
    {
      operationId: 'listApiKeys',
      summary: 'List API keys of a project',
      description: 'Oldest first, revoked keys included (filter with `status`). Never shows a secret.',
      tags,
      success: { status: 200, description: 'A page of API keys.', schema: ApiKeyList },
    },
    authenticate,
    authorizeFor('list', 'api_key'),
    requireScope('admin'),
    validate({ params: ProjectParams, query: ListApiKeysQuery }),
    async (ctx: ApiContext<{ params: ProjectParams; query: ListApiKeysQuery }>) => {
      const { page, per_page, status } = ctx.input.query;
      const { items, total } = await apiKeys.list(ctx.state.principal, ctx.input.params.project_id, { status }, { page, per_page });
      const now = clock.date();
      sendPage(ctx, config.publicUrl, items.map((doc) => presentApiKey(doc, now)), total, { page, per_page });
    },
  );

  api.post(
    '/projects/:project_id/api_keys',
    {
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description:
        'A key acts as its project alone, with its scopes. The response is the only place the secret (`key`) ever appears: Slipway stores only its SHA-256. Archived projects refuse it.',
      tags,
      success: created('The new key, with its secret.', IssuedApiKey, 'URL of the new key.'),
      errors: ['project_not_active', 'quota_exceeded'],
    },
    authenticate,
    authorizeFor('create', 'api_key'),
    requireScope('admin'),
    validate({ params: ProjectParams, body: CreateApiKeyBody }),
    idempotentKeyIssue,
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateApiKeyBody }>) => {
      const issued = await apiKeys.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/projects/${issued.apiKey.project_id}/api_keys/${issued.apiKey._id}`, presentIssuedApiKey(issued));
    },
  );

  api.get(
    '/projects/:project_id/api_keys/:api_key_id',
    { operationId: 'getApiKey', summary: 'Get an API key', description: 'Never shows the secret.', tags, success: { status: 200, description: 'The key.', schema: ApiKey } },
    authenticate,
    authorizeFor('read', 'api_key'),
    requireScope('admin'),
    validate({ params: ApiKeyParams }),
    async (ctx: ApiContext<{ params: ApiKeyParams }>) => {
      ctx.body = presentApiKey(await apiKeys.get(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.api_key_id), clock.date());
    },
  );

  api.delete(
    '/projects/:project_id/api_keys/:api_key_id',
    {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description:
        'The key stops working at once on this instance and within 30 s on every other one; its secrets are deleted. It stays listed with `status: "revoked"`, so the answer is the revoked key (200), and revoking it again returns it unchanged. Allowed on archived projects too: removing access is never blocked.',
      tags,
      success: { status: 200, description: 'The revoked key.', schema: ApiKey },
    },
    authenticate,
    authorizeFor('revoke', 'api_key'),
    requireScope('admin'),
    validate({ params: ApiKeyParams }),
    async (ctx: ApiContext<{ params: ApiKeyParams }>) => {
      ctx.body = presentApiKey(await apiKeys.revoke(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.api_key_id), clock.date());
    },
  );

  api.post(
    '/projects/:project_id/api_keys/:api_key_id/rotate',
    {
      operationId: 'rotateApiKey',
      summary: 'Rotate an API key',
      description:
        'Issues a new secret for the same key id, working at once. The previous secret keeps working for `grace_period_seconds` (default 0: it stops now). Other keys are untouched. Revoked or expired keys cannot be rotated (`conflict`); archived projects refuse it.',
      tags,
      success: { status: 200, description: 'The key with its new secret.', schema: IssuedApiKey },
      errors: ['conflict', 'project_not_active'],
    },
    authenticate,
    authorizeFor('rotate', 'api_key'),
    requireScope('admin'),
    validate({ params: ApiKeyParams, body: RotateApiKeyBody }),
    idempotentRotation,
    async (ctx: ApiContext<{ params: ApiKeyParams; body: RotateApiKeyBody }>) => {
      const { project_id, api_key_id } = ctx.input.params;
      ctx.body = presentIssuedApiKey(await apiKeys.rotate(ctx.state.principal, project_id, api_key_id, ctx.input.body));
    },
  );
}
