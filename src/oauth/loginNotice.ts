import type { Context } from 'koa';

const NOTICE_COOKIE = 'slipway_login_notice';
const NOTICE_PATH = '/oauth/interaction';
const NOTICES = { 'password-set': 'Your password is set — sign in.', 'invitation-accepted': 'You joined the account — sign in.' } as const;
export type LoginNoticeCode = keyof typeof NOTICES;

export interface LoginNotice {
  text: string;
  /** To fill in the email field. */
  email?: string;
}

const options = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: NOTICE_PATH, signed: true, overwrite: true });

/**
 * A message for the next sign-in page this browser sees, e.g. after choosing a password on a setup
 * link: the way to the login page goes through /dashboard/login and /oauth/authorize, which carry no
 * parameters of ours, so it travels in a short-lived signed cookie that only the login page reads.
 */
export function setLoginNotice(ctx: Context, secure: boolean, code: LoginNoticeCode, email?: string): void {
  const value = Buffer.from(JSON.stringify({ code, ...(email ? { email } : {}) })).toString('base64url');
  ctx.cookies.set(NOTICE_COOKIE, value, { ...options(secure), maxAge: 10 * 60 * 1000 });
}

/** The pending notice (then forgotten), or undefined. Only known codes are shown: the text is ours. */
export function takeLoginNotice(ctx: Context): LoginNotice | undefined {
  const raw = ctx.cookies.get(NOTICE_COOKIE, { signed: true });
  if (!raw) return undefined;
  ctx.cookies.set(NOTICE_COOKIE, null, options(ctx.secure));
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { code?: unknown; email?: unknown };
    if (typeof parsed.code !== 'string' || !Object.hasOwn(NOTICES, parsed.code)) return undefined;
    const text = NOTICES[parsed.code as LoginNoticeCode];
    return typeof parsed.email === 'string' && parsed.email.length <= 254 ? { text, email: parsed.email } : { text };
  } catch {
    return undefined;
  }
}
