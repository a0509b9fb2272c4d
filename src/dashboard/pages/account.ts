import type { Context } from 'koa';
import { validationFailed } from '../../errors.ts';
import { ChangePasswordBody } from '../../schemas/users.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE } from '../../services/sessions.ts';
import { sessionCookieOptions } from '../auth.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { ACCOUNT_PATH, accountView } from '../views/account.ts';

/** The password form as ChangePasswordBody, once the new password is typed the same twice. */
function passwordFields(form: FormValues) {
  const next = str(form, 'new_password');
  if (next && next !== str(form, 'confirm_password')) throw validationFailed([{ field: 'confirm_password', message: 'does not match the new password' }]);
  return { current_password: str(form, 'current_password'), new_password: next };
}

/** Account: who you are, and changing your own password (which signs out your other sessions). */
export function registerAccountPage(pages: PageRouter, deps: DashboardDeps): void {
  const { config, sessions } = deps;
  const { users, quotas } = deps.services;

  async function show(ctx: Context, form?: FormState, status = 200) {
    const { principal, viewer, user } = dash(ctx);
    const usage = await quotas.usage(principal);
    const { items } = await users.memberships(principal, { page: 1, per_page: 100 });
    const memberships = items.map(({ user: member, account }) => ({ accountId: account._id, name: account.name, role: member.role, current: member._id === user._id }));
    sendPage(ctx, config, { title: 'Account', status, body: accountView({ csrf: viewer.csrf, user, usage, requestsPerHour: config.accountRequestsPerHour, memberships, form }) });
  }

  // Every role may read: any signed-in user sees their own account.
  pages.get('/account', 'read', (ctx) => show(ctx));

  pages.form('/account/password', {
    scope: 'read',
    schema: ChangePasswordBody,
    fields: passwordFields,
    run: async (ctx, input, { principal, user }) => {
      await users.changeOwnPassword(principal, input);
      // The service ended the user's other sessions and grants (anyone who knew the old password is out);
      // this browser's session is replaced by a new one too.
      await sessions.revokeForUser(user._id);
      const { token } = await sessions.create(user._id, user.account_id);
      ctx.cookies.set(SESSION_COOKIE, token, { ...sessionCookieOptions(config), maxAge: SESSION_ABSOLUTE_MS });
      ctx.state.log?.info({ user_id: user._id }, 'password changed in the dashboard; other sessions ended');
    },
    answer: () => success(ACCOUNT_PATH, 'Password changed. Your other sessions were signed out.'),
    refused: { fields: ['current_password', 'new_password', 'confirm_password'], keep: () => ({}), rerender: show },
  });
}
