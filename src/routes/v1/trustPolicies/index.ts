import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { newId } from '../../../lib/ids.ts';
import { presentTrustPolicy } from '../../../presenters/trustPolicies.ts';
import { PageQuery } from '../../../schemas/page.ts';
import { ProjectParams } from '../../../schemas/projects.ts';
import { CreateTrustPolicyBody, TrustPolicy, TrustPolicyList, TrustPolicyParams } from '../../../schemas/trustPolicies.ts';
import type { V1Deps } from '../deps.ts';

const tags = ['Trust policies'];

/**
 * docs/product.md §13: a project's trust policies, managed with the admin scope by the account's people
 * and apps (never by an API key or a CI token). A CI token a policy accepts is exchanged at
 * `POST /oauth/token` (grant type `urn:ietf:params:oauth:grant-type:token-exchange`).
 */
export function registerTrustPolicyRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { trustPolicies } = services;
  const idempotentCreate = idempotent({ newResourceId: () => newId('trustPolicy') });

  api.get(
    '/projects/:project_id/trust_policies',
    { operationId: 'listTrustPolicies', summary: 'List trust policies of a project', description: 'Oldest first.', tags, success: { status: 200, description: 'A page of trust policies.', schema: TrustPolicyList } },
    authenticate,
    authorizeFor('list', 'trust_policy'),
    requireScope('admin'),
    validate({ params: ProjectParams, query: PageQuery }),
    async (ctx: ApiContext<{ params: ProjectParams; query: PageQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await trustPolicies.list(ctx.state.principal, ctx.input.params.project_id, {}, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentTrustPolicy), total, { page, per_page });
    },
  );

  api.post(
    '/projects/:project_id/trust_policies',
    {
      operationId: 'createTrustPolicy',
      summary: 'Create a trust policy',
      description:
        'Lets CI tokens of `issuer` whose `aud` holds `audience` and whose claims equal every value of `claims` be exchanged (RFC 8693, at the token endpoint, with no secret) for a token acting as this project with `scopes`, deploying only to `environments`. Archived projects refuse it.',
      tags,
      success: created('The new trust policy.', TrustPolicy, 'URL of the new trust policy.'),
      errors: ['project_not_active'],
    },
    authenticate,
    authorizeFor('create', 'trust_policy'),
    requireScope('admin'),
    validate({ params: ProjectParams, body: CreateTrustPolicyBody }),
    idempotentCreate,
    async (ctx: ApiContext<{ params: ProjectParams; body: CreateTrustPolicyBody }>) => {
      const doc = await trustPolicies.create(ctx.state.principal, ctx.input.params.project_id, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/projects/${doc.project_id}/trust_policies/${doc._id}`, presentTrustPolicy(doc));
    },
  );

  api.get(
    '/projects/:project_id/trust_policies/:trust_policy_id',
    { operationId: 'getTrustPolicy', summary: 'Get a trust policy', tags, success: { status: 200, description: 'The trust policy.', schema: TrustPolicy } },
    authenticate,
    authorizeFor('read', 'trust_policy'),
    requireScope('admin'),
    validate({ params: TrustPolicyParams }),
    async (ctx: ApiContext<{ params: TrustPolicyParams }>) => {
      ctx.body = presentTrustPolicy(await trustPolicies.get(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.trust_policy_id));
    },
  );

  api.delete(
    '/projects/:project_id/trust_policies/:trust_policy_id',
    {
      operationId: 'deleteTrustPolicy',
      summary: 'Delete a trust policy',
      description: 'Tokens exchanged through it stop working (at once on this instance, within the revocation refresh on the others).',
      tags,
      success: { status: 204, description: 'Deleted.' },
    },
    authenticate,
    authorizeFor('delete', 'trust_policy'),
    requireScope('admin'),
    validate({ params: TrustPolicyParams }),
    async (ctx: ApiContext<{ params: TrustPolicyParams }>) => {
      await trustPolicies.delete(ctx.state.principal, ctx.input.params.project_id, ctx.input.params.trust_policy_id);
      ctx.status = 204;
    },
  );
}
