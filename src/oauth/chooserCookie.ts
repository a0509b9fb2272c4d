import type { Context } from 'koa';

const CHOOSER_COOKIE = 'slipway_chooser';
const CHOOSER_MAX_AGE_MS = 10 * 60 * 1000;

const options = (secure: boolean, uid: string) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: `/oauth/interaction/${uid}`, signed: true, overwrite: true });

/**
 * Between the password and the account chooser (docs/product.md §11): who proved their password in
 * this interaction, in a short-lived cookie signed with the app's keys, for this interaction's path
 * only. The chooser's answer is taken only for that person and interaction.
 */
export function rememberChooser(ctx: Context, uid: string, identityId: string): void {
  ctx.cookies.set(CHOOSER_COOKIE, `${uid}.${identityId}`, { ...options(ctx.secure, uid), maxAge: CHOOSER_MAX_AGE_MS });
}

/** The person who signed in to interaction `uid` and now chooses, if this browser is theirs. */
export function chooserOf(ctx: Context, uid: string): string | undefined {
  const value = ctx.cookies.get(CHOOSER_COOKIE, { signed: true });
  const [forUid, identityId] = value?.split('.') ?? [];
  return forUid === uid && identityId ? identityId : undefined;
}

export function forgetChooser(ctx: Context, uid: string): void {
  ctx.cookies.set(CHOOSER_COOKIE, null, options(ctx.secure, uid));
}
