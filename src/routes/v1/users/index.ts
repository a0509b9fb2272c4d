import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentCreatedUser, presentUser } from '../../../presenters/users.ts';
import type { V1Deps } from '../deps.ts';
import { ChangePasswordBody, CreatedUser, CreateUserBody, ListUsersQuery, UpdateUserBody, User, UserList, UserParams } from '../../../schemas/users.ts';

const tags = ['Users'];

/**
 * The users of the caller's account (docs/product.md §5). Never for API keys (403 `forbidden`): a key acts as a
 * project, not as anyone in the account.
 */
export function registerUserRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { users } = services;

  api.get(
    '/users',
    { operationId: 'listUsers', summary: 'List users of the account', description: 'Oldest first.', tags, success: { status: 200, description: 'A page of users.', schema: UserList } },
    authenticate,
    authorizeFor('list', 'user'),
    requireScope('read'),
    validate({ query: ListUsersQuery }),
    async (ctx: ApiContext<{ query: ListUsersQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { items, total } = await users.list(ctx.state.principal, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map(presentUser), total, { page, per_page });
    },
  );

  // Before /users/:user_id, so "me" is never taken for an id.
  api.get(
    '/users/me',
    {
      operationId: 'getCurrentUser',
      summary: 'Get the signed-in user',
      description: 'A user removed a moment ago may still hold a working credential for a few seconds; reading them then is `not_found`.',
      tags,
      success: { status: 200, description: 'The user the credential acts for.', schema: User },
      errors: ['not_found'],
    },
    authenticate,
    authorizeFor('read_self', 'user'),
    requireScope('read'),
    async (ctx: ApiContext) => {
      ctx.body = presentUser(await users.get(ctx.state.principal, ctx.state.principal.id));
    },
  );

  api.post(
    '/users/me/password',
    {
      operationId: 'changeOwnPassword',
      summary: 'Change your own password',
      description:
        'Needs the current password (a wrong one, or a new password equal to it, is `validation_failed`). Any scope will do, so a viewer can change their own password too: the current password is the proof. Every other sign-in of the user ends at once: their other dashboard sessions, the grants of their apps (refresh and access tokens) and authorization-server sessions. The credential making the change (this session, or this app’s grant) keeps working.',
      tags,
      success: { status: 204, description: 'Changed.' },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('change_own_password', 'user'),
    requireScope('read'),
    validate({ body: ChangePasswordBody }),
    async (ctx: ApiContext<{ body: ChangePasswordBody }>) => {
      await users.changeOwnPassword(ctx.state.principal, ctx.input.body);
      ctx.status = 204;
    },
  );

  api.get(
    '/users/:user_id',
    { operationId: 'getUser', summary: 'Get a user', tags, success: { status: 200, description: 'The user.', schema: User } },
    authenticate,
    authorizeFor('read', 'user'),
    requireScope('read'),
    validate({ params: UserParams }),
    async (ctx: ApiContext<{ params: UserParams }>) => {
      ctx.body = presentUser(await users.get(ctx.state.principal, ctx.input.params.user_id));
    },
  );

  api.post(
    '/users',
    {
      operationId: 'createUser',
      summary: 'Invite someone to the account',
      description:
        'Adds a user with `status: invited` and answers, once, `invitation_url`: the person opens it, signs in (or, new to Slipway, chooses a password; `password` here sets one for them instead) and accepts or declines; it expires after 7 days, and removing the user revokes it. Slipway sends no e-mail. The answer is the same whether or not the address signs in anywhere (docs/tenant-isolation.md). Only an owner may invite an owner. An e-mail already in the account is `conflict`.',
      tags,
      success: created('The invited user, with the invitation link.', CreatedUser, 'URL of the new user.'),
      errors: ['conflict', 'quota_exceeded'],
    },
    authenticate,
    authorizeFor('create', 'user'),
    requireScope('admin'),
    validate({ body: CreateUserBody }),
    idempotent({ secretRequestFields: ['password'], shownOnceResponseFields: ['invitation_url', 'setup_url'], newResourceId: () => newId('user') }),
    async (ctx: ApiContext<{ body: CreateUserBody }>) => {
      const { user, invitation } = await users.create(ctx.state.principal, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/users/${user._id}`, presentCreatedUser(user, invitation, config.publicUrl));
    },
  );

  api.patch(
    '/users/:user_id',
    {
      operationId: 'updateUser',
      summary: 'Rename a user or change their role',
      description: 'Only an owner may grant `owner` or change an owner; the last owner cannot be demoted (`conflict`). A new role takes effect on the user’s existing tokens within 30 s.',
      tags,
      success: { status: 200, description: 'The updated user.', schema: User },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('update', 'user'),
    requireScope('admin'),
    validate({ params: UserParams, body: UpdateUserBody }),
    async (ctx: ApiContext<{ params: UserParams; body: UpdateUserBody }>) => {
      ctx.body = presentUser(await users.update(ctx.state.principal, ctx.input.params.user_id, ctx.input.body));
    },
  );

  api.delete(
    '/users/:user_id',
    {
      operationId: 'deleteUser',
      summary: 'Remove a user',
      description:
        'For an invited user, revokes the invitation. Otherwise revokes everything that lets the user act in this account (and nothing in the person’s other accounts): OAuth grants (their refresh tokens at once; their access tokens at once on the instance that removed them, within `REVOCATION_REFRESH_SECONDS` (15 s) elsewhere), sign-in and dashboard sessions, setup links. Only an owner may remove an owner; the last owner cannot be removed (`conflict`).',
      tags,
      success: { status: 204, description: 'Removed.' },
      errors: ['conflict'],
    },
    authenticate,
    authorizeFor('delete', 'user'),
    requireScope('admin'),
    validate({ params: UserParams }),
    async (ctx: ApiContext<{ params: UserParams }>) => {
      await users.delete(ctx.state.principal, ctx.input.params.user_id);
      ctx.status = 204;
    },
  );
}
