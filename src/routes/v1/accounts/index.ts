import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { presentMembership } from '../../../presenters/memberships.ts';
import { ListMembershipsQuery, MembershipList } from '../../../schemas/accounts.ts';
import type { V1Deps } from '../deps.ts';

const tags = ['Accounts'];

/**
 * The accounts the signed-in person is a member of (docs/product.md §11). Users only: a client acts for
 * its one account and an API key for its one project (403 `forbidden`).
 */
export function registerAccountRoutes(api: ApiRouter, { authenticate, services, config }: V1Deps): void {
  const { users } = services;

  api.get(
    '/accounts',
    {
      operationId: 'listAccounts',
      summary: 'List your accounts',
      description:
        'Every account the signed-in person is a member of, with their role there, oldest first. The credential keeps acting in its own account (`current`); another account needs a sign-in to it.',
      tags,
      success: { status: 200, description: 'A page of memberships.', schema: MembershipList },
      errors: ['not_found'],
    },
    authenticate,
    authorizeFor('list_memberships', 'account'),
    requireScope('read'),
    validate({ query: ListMembershipsQuery }),
    async (ctx: ApiContext<{ query: ListMembershipsQuery }>) => {
      const { page, per_page } = ctx.input.query;
      const { principal } = ctx.state;
      const { items, total } = await users.memberships(principal, { page, per_page });
      sendPage(ctx, config.publicUrl, items.map((m) => presentMembership(m, principal.id)), total, { page, per_page });
    },
  );
}
