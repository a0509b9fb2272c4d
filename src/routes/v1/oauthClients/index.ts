import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { presentClient } from '../../../presenters/oauthClients.ts';
import { newId } from '../../../lib/ids.ts';
import type { V1Deps } from '../deps.ts';
import { ClientParams, ListClientsQuery, OAuthClient, OAuthClientList, RegisterClientBody, RegisteredClient } from '../../../schemas/oauthClients.ts';

const tags = ['OAuth clients'];

/**
 * The account's OAuth clients (docs/product.md §4), the same operations as `slipway clients create`. Admin only,
 * never an API key.
 */
export function registerOAuthClientRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { oauthClients } = services;
  const idempotentRegistration = idempotent({ shownOnceResponseFields: ['client_secret'], newResourceId: () => newId('oauthClient') });
  // A rotation creates nothing new: a run after a failure rotates again (the secret is shown once).
  const idempotentRotation = idempotent({ shownOnceResponseFields: ['client_secret'] });

  api.get(
    '/oauth_clients',
    { operationId: 'listOAuthClients', summary: 'List OAuth clients', description: 'Oldest first.', tags, success: { status: 200, description: 'A page of clients.', schema: OAuthClientList } },
    authenticate,
    authorizeFor('list', 'oauth_client'),
    requireScope('admin'),
    validate({ query: ListClientsQuery }),
    async (ctx: ApiContext<{ query: ListClientsQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await oauthClients.list(ctx.state.principal, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentClient), total, { page, per_page });
    },
  );

  api.post(
    '/oauth_clients',
    {
      operationId: 'registerOAuthClient',
      summary: 'Register an OAuth client',
      description:
        'RFC 7591 field names. A confidential client (`client_secret_basic`) gets a `client_secret`, shown in this response only. Every client uses PKCE (S256) for the authorization code flow; redirect URIs match exactly.',
      tags,
      success: created('The new client (with its secret when confidential).', RegisteredClient, 'URL of the new client.'),
      errors: ['quota_exceeded'],
    },
    authenticate,
    authorizeFor('create', 'oauth_client'),
    requireScope('admin'),
    validate({ body: RegisterClientBody }),
    idempotentRegistration,
    async (ctx: ApiContext<{ body: RegisterClientBody }>) => {
      const { client, clientSecret } = await oauthClients.register(ctx.state.principal, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/oauth_clients/${client._id}`, { ...presentClient(client), client_secret: clientSecret });
    },
  );

  api.get(
    '/oauth_clients/:client_id',
    { operationId: 'getOAuthClient', summary: 'Get an OAuth client', description: 'Never shows the secret.', tags, success: { status: 200, description: 'The client.', schema: OAuthClient } },
    authenticate,
    authorizeFor('read', 'oauth_client'),
    requireScope('admin'),
    validate({ params: ClientParams }),
    async (ctx: ApiContext<{ params: ClientParams }>) => {
      ctx.body = presentClient(await oauthClients.get(ctx.state.principal, ctx.input.params.client_id));
    },
  );

  api.delete(
    '/oauth_clients/:client_id',
    {
      operationId: 'deleteOAuthClient',
      summary: 'Delete an OAuth client',
      description:
        'Revokes every grant made to it: its refresh tokens stop working at once, and its access tokens (user and client_credentials) at once on the instance that deleted it and within `REVOCATION_REFRESH_SECONDS` (15 s) on the others.',
      tags,
      success: { status: 204, description: 'Deleted.' },
    },
    authenticate,
    authorizeFor('delete', 'oauth_client'),
    requireScope('admin'),
    validate({ params: ClientParams }),
    async (ctx: ApiContext<{ params: ClientParams }>) => {
      await oauthClients.delete(ctx.state.principal, ctx.input.params.client_id);
      ctx.status = 204;
    },
  );

  api.post(
    '/oauth_clients/:client_id/rotate_secret',
    {
      operationId: 'rotateOAuthClientSecret',
      summary: 'Rotate a client secret',
      description: 'A new `client_secret`, shown in this response only; the old one stops working at once on the instance that rotated it and within `PRINCIPAL_CACHE_SECONDS` (15 s) on the others. Public clients have no secret (`conflict`).',
      tags,
      success: { status: 200, description: 'The client with its new secret.', schema: RegisteredClient },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('rotate_secret', 'oauth_client'),
    requireScope('admin'),
    validate({ params: ClientParams }),
    idempotentRotation,
    async (ctx: ApiContext<{ params: ClientParams }>) => {
      const { client, clientSecret } = await oauthClients.rotateSecret(ctx.state.principal, ctx.input.params.client_id);
      ctx.body = { ...presentClient(client), client_secret: clientSecret };
    },
  );
}
