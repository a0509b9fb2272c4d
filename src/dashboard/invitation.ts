import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../errors.ts';
import { sourceKey } from '../http/clientAddress.ts';
import { readDevice } from '../oauth/deviceCookie.ts';
import { setLoginNotice } from '../oauth/loginNotice.ts';
import type { OpenInvitation } from '../services/invitations.ts';
import type { DashboardDeps } from './context.ts';
import { formIsOurs, SetupCsrfCookie } from './csrf.ts';
import { formBody, queryValue, refusal, str } from './forms.ts';
import { mountLinkPage, sendLinkPage } from './linkPage.ts';
import { declinedView, INVITATION_PATH, invalidInvitationView, invitationFormView, type InvitationFormView } from './views/invitation.ts';

const invalidPage = (ctx: Context) => sendLinkPage(ctx, 400, 'Invitation not valid', invalidInvitationView());

/**
 * The page behind an invitation link (`/dashboard/invitation?token=slwin_…`, docs/product.md §9): the
 * person sees the account and role, types the invited address's password (or, new to Slipway, chooses
 * one) and presses Accept, or presses Decline. Accepted, they are sent to sign in. The token stays out
 * of URLs it could leak from, and forms are checked, as on the setup page (src/dashboard/setup.ts).
 */
export function createInvitationPages(deps: Pick<DashboardDeps, 'config' | 'services' | 'logger'>): Middleware {
  const { config, logger } = deps;
  const { invitations } = deps.services;
  const secure = config.publicUrl.startsWith('https:');
  const csrf = new SetupCsrfCookie(INVITATION_PATH, secure);
  const parseForm = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  const router = new Router({ prefix: '/dashboard' });

  const renderForm = (ctx: Context, o: Omit<InvitationFormView, 'csrf'>, status = 200) =>
    sendLinkPage(ctx, status, `Join ${o.accountName}`, invitationFormView({ ...o, csrf: csrf.issue(ctx) }));

  router.get('/invitation', async (ctx) => {
    const token = queryValue(ctx.query.token);
    const found = await invitations.find(token);
    if (!found) return invalidPage(ctx);
    renderForm(ctx, { token, ...found });
  });

  router.post('/invitation', parseForm, async (ctx) => {
    const form = formBody(ctx.request.body);
    const token = str(form, 'token');
    const found = await invitations.find(token);
    if (!found) return invalidPage(ctx);
    if (!formIsOurs(ctx, form, csrf.expected(ctx))) {
      const message = 'This form could not be verified (it may be out of date, or cookies are blocked for this site). Try again.';
      return renderForm(ctx, { token, ...found, form: { values: {}, errors: {}, message } }, 403);
    }
    try {
      if (str(form, 'decision') === 'decline') return await decline(ctx, token, found);
      await accept(ctx, token, str(form, 'password'));
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_request') return invalidPage(ctx);
      if (err instanceof AppError && err.code === 'rate_limited') {
        for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
        return renderForm(ctx, { token, ...found, form: { values: {}, errors: {}, message: err.message } }, 429);
      }
      const refused = refusal(err, { fields: ['password'] });
      if (!refused) throw err;
      return renderForm(ctx, { token, ...found, form: { values: {}, ...refused } }, refused.status);
    }
  });

  async function decline(ctx: Context, token: string, found: OpenInvitation) {
    const removed = await invitations.decline(token);
    csrf.clear(ctx);
    (ctx.state.log ?? logger).info({ user_id: removed._id }, 'invitation declined');
    sendLinkPage(ctx, 200, 'Invitation declined', declinedView(found.accountName));
  }

  async function accept(ctx: Context, token: string, password: string) {
    const device = readDevice(ctx);
    const member = await invitations.accept(token, { password, source: sourceKey(ctx.ip), device });
    csrf.clear(ctx);
    setLoginNotice(ctx, secure, 'invitation-accepted', member.email);
    (ctx.state.log ?? logger).info({ user_id: member._id }, 'invitation accepted');
    ctx.status = 303;
    ctx.redirect('/dashboard/login');
  }

  return mountLinkPage(INVITATION_PATH, router, logger);
}
