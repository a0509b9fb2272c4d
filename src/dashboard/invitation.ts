import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';
import { sourceKey } from '../http/clientAddress.ts';
import { readDevice } from '../oauth/deviceCookie.ts';
import { setLoginNotice } from '../oauth/loginNotice.ts';
import type { DashboardDeps } from './context.ts';
import { str } from './forms.ts';
import { createLinkPage, sendLinkPage } from './linkPage.ts';
import { declinedView, INVITATION_PATH, invalidInvitationView, invitationFormView } from './views/invitation.ts';

const invalidPage = (ctx: Context) => sendLinkPage(ctx, 400, 'Invitation not valid', invalidInvitationView());

/**
 * The page behind an invitation link (`/dashboard/invitation?token=slwin_…`, docs/product.md §11): the
 * person sees the account and role, types the invited address's password (or, new to Slipway, chooses
 * one) and presses Accept, or presses Decline. Accepted, they are sent to sign in. The token stays out
 * of URLs it could leak from, and the form is checked, as on the setup page (src/dashboard/setup.ts).
 */
export function createInvitationPages(deps: Pick<DashboardDeps, 'config' | 'services' | 'logger'>): Middleware {
  const { config, logger } = deps;
  const { invitations } = deps.services;
  const secure = config.publicUrl.startsWith('https:');
  return createLinkPage({
    path: INVITATION_PATH,
    secure,
    logger,
    find: (token) => invitations.find(token),
    invalid: invalidPage,
    render: (ctx, { token, found, csrf, form }, status) => sendLinkPage(ctx, status, `Join ${found.accountName}`, invitationFormView({ token, ...found, csrf, form })),
    notVerified: 'This form could not be verified (it may be out of date, or cookies are blocked for this site). Try again.',
    fields: ['password'],
    async submit(ctx, form, { token, found }, answer) {
      const log = ctx.state.log ?? logger;
      if (str(form, 'decision') === 'decline') {
        const removed = await invitations.decline(token);
        answer.done();
        log.info({ user_id: removed._id }, 'invitation declined');
        return sendLinkPage(ctx, 200, 'Invitation declined', declinedView(found.accountName));
      }
      try {
        const member = await invitations.accept(token, { password: str(form, 'password'), source: sourceKey(ctx.ip), device: readDevice(ctx) });
        answer.done();
        setLoginNotice(ctx, secure, 'invitation-accepted', member.email);
        log.info({ user_id: member._id }, 'invitation accepted');
        ctx.status = 303;
        ctx.redirect('/dashboard/login');
      } catch (err) {
        // Too many guesses at the address's password: the sign-in budgets (LoginService) said so.
        if (!(err instanceof AppError && err.code === 'rate_limited')) throw err;
        for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
        answer.again({ values: {}, errors: {}, message: err.message }, 429);
      }
    },
  });
}
