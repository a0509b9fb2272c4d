import type { Context } from 'koa';
import type { Principal } from '../domain/principal.ts';

/**
 * Turns one kind of bearer credential into a Principal, or throws `invalidToken()`. Which authenticator
 * handles a token is decided by its shape alone (`accepts`), before anything is verified, so a token
 * never reaches a verifier meant for another kind.
 */
export interface Authenticator {
  /** For logs: 'access_token', 'api_key', 'session'. */
  readonly name: string;
  /** Whether the token has this authenticator's shape (a prefix like `slw_`, or JWT structure). */
  accepts(token: string): boolean;
  /**
   * `scheme`: how the token was sent, `Authorization: Bearer` or `Authorization: DPoP` (RFC 9449 §7.1).
   * Only the access token authenticator knows DPoP; the others refuse that scheme.
   */
  authenticate(token: string, ctx: Context, scheme: AuthScheme, options?: AuthenticateOptions): Promise<Principal>;
  /**
   * For a credential the browser sends by itself (the dashboard's session cookie): tried only when the
   * request has no Authorization header. Returns null when the request carries none; throws
   * `invalidToken()` for one that is not valid and `forbidden()` for an unsafe method without proof
   * that the page sending it was ours (CSRF), since a cookie rides along on cross-site requests too.
   */
  fromCookies?(ctx: Context): Promise<Principal | null>;
}

export type AuthScheme = 'bearer' | 'dpop';

export interface AuthenticateOptions {
  /**
   * The credential is checked again for a request that was authenticated already and is still open (an
   * event stream): its DPoP proof was verified then and is not presented again (it is single use).
   */
  recheck?: boolean;
}

const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);
