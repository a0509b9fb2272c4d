import type { Context, Middleware } from 'koa';
import { setLoginNotice } from '../oauth/loginNotice.ts';
import { parseInput } from '../schemas/parse.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, SetPasswordInput } from '../schemas/users.ts';
import type { DashboardDeps } from './context.ts';
import { createLinkPage, sendLinkPage } from './linkPage.ts';
import { str, type FieldErrors, type FormValues } from './forms.ts';
import { invalidLinkView, SETUP_PATH, setupFormView } from './views/setup.ts';

const invalidPage = (ctx: Context) => sendLinkPage(ctx, 400, 'Setup link not valid', invalidLinkView());

/** What is wrong with the chosen password, by field (none: it may be set). */
function passwordErrors(form: FormValues): FieldErrors {
  const password = str(form, 'password');
  const errors: FieldErrors = {};
  if (!password) errors.password = 'Enter a new password.';
  else if (password.length < PASSWORD_MIN_LENGTH) errors.password = `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  else if (password.length > PASSWORD_MAX_LENGTH) errors.password = `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (password && str(form, 'confirm_password') !== password) errors.confirm_password = 'Does not match the new password.';
  return errors;
}

/**
 * The page behind a setup link (`/dashboard/setup?token=slwsu_…`): the new user, who has no session
 * yet, chooses a password; the token is consumed then, and they are sent to sign in.
 *
 * The token leaves the URL as soon as it can: the form posts it in a hidden field (never in the action
 * URL), every response is `no-store`, and `Referrer-Policy: no-referrer` (global) keeps it out of
 * Referer headers. The request log records only the path.
 *
 * CSRF, without a session: the token itself is the credential, so a forged post without it changes
 * nothing, and one with it could only set a password on the forger's own (or a stolen) link. On top of
 * that, the dashboard's CSRF check (src/dashboard/csrf.ts) against a signed double-submit cookie: the
 * GET sets a random value in a cookie (signed with the app's keys, SameSite=Strict, this path only)
 * and in the form; the POST must bring both, equal. An
 * Origin/Referer check was the other option, but under `Referrer-Policy: no-referrer` browsers send no
 * Referer and `Origin: null` on form posts (Fetch, "append a request Origin header"), so the check
 * could not tell our own form from another site's.
 */
export function createSetupPages(deps: Pick<DashboardDeps, 'config' | 'services' | 'logger'>): Middleware {
  const { config, logger } = deps;
  const { users } = deps.services;
  const secure = config.publicUrl.startsWith('https:');
  return createLinkPage({
    path: SETUP_PATH,
    secure,
    logger,
    find: (token) => users.findBySetupToken(token),
    invalid: invalidPage,
    render: (ctx, { token, found, csrf, form }, status) => sendLinkPage(ctx, status, 'Set your password', setupFormView({ token, ...found, csrf, form })),
    notVerified: 'This form could not be verified (it may be out of date, or cookies are blocked for this site). Enter your new password again.',
    fields: ['password'],
    async submit(ctx, form, { token }, answer) {
      const errors = passwordErrors(form);
      if (Object.keys(errors).length > 0) return answer.again({ values: {}, errors }, 422);
      // Consumes the token exactly once, also against concurrent posts (see UserService.completeSetup).
      const user = await users.completeSetup(token, parseInput(SetPasswordInput, { password: str(form, 'password') }));
      // The service ended every sign-in made with the old password (a setup link also serves as a reset).
      answer.done();
      setLoginNotice(ctx, secure, 'password-set', user.email);
      (ctx.state.log ?? logger).info({ user_id: user._id }, 'password set with a setup link');
      ctx.status = 303;
      ctx.redirect('/dashboard/login');
    },
  });
}
