import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { sameSecret } from '../lib/hash.ts';
import type { FormValues } from './forms.ts';

/**
 * The dashboard's one CSRF check, for every form it serves: the form's hidden `_csrf` field
 * (`csrfField`) must equal the value this browser was given, compared in constant time. Signed-in
 * pages give the session's token (synchronizer token: `verifyForm` for every page's form, the
 * sign-out form); the setup page, which has no session yet, gives the value of a signed double-submit
 * cookie (`SetupCsrfCookie`). A form that does not match is refused before anything runs, and logged.
 */
export function formIsOurs(ctx: Context, form: FormValues, expected: string | undefined): boolean {
  if (sameSecret(expected, form._csrf)) return true;
  ctx.state.log?.warn({ path: ctx.path }, 'dashboard form refused: missing or wrong CSRF token');
  return false;
}

/** What a signed-in page says of a form that does not match. */
export const FORM_NOT_VERIFIED = 'This form could not be verified (it may be out of date). Reload the page and try again.';

const PATTERN = /^[A-Za-z0-9_-]{32}$/;

/**
 * The setup page's double-submit value: in a cookie signed with the app's keys, SameSite=Strict, for
 * that one path, and in the form. Without a session, it is what the form must bring back.
 */
export class SetupCsrfCookie {
  static readonly NAME = 'slipway_setup_csrf';
  readonly #options;

  constructor(path: string, secure: boolean) {
    this.#options = { httpOnly: true, sameSite: 'strict' as const, secure, path, signed: true, overwrite: true };
  }

  /** This browser's value: the one in its cookie when there is one, else a new one (set for a day). */
  issue(ctx: Context): string {
    const existing = this.expected(ctx);
    if (existing) return existing;
    const value = randomBytes(24).toString('base64url');
    ctx.cookies.set(SetupCsrfCookie.NAME, value, { ...this.#options, maxAge: 24 * 3600 * 1000 });
    return value;
  }

  /** The value the form must carry, when the browser sent a validly signed one. */
  expected(ctx: Context): string | undefined {
    const value = ctx.cookies.get(SetupCsrfCookie.NAME, { signed: true });
    return value && PATTERN.test(value) ? value : undefined;
  }

  clear(ctx: Context): void {
    ctx.cookies.set(SetupCsrfCookie.NAME, null, this.#options);
  }
}
