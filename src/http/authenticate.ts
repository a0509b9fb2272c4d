import type { Next } from 'koa';
import { AppError, invalidRequest, invalidToken, unauthorized } from '../errors.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { anonymousBucket, type ApiRateLimiter } from './rateLimit.ts';
import type { AuthenticateOptions, Authenticator } from '../auth/authenticators.ts';
import type { Principal } from '../domain/principal.ts';

/**
 * Query parameters that would carry a credential (RFC 6750 §2.3's `access_token`, and `api_key`); refused
 * outright rather than ignored, since a credential in a URL leaks into logs and browser history.
 */
const QUERY_CREDENTIALS = ['access_token', 'api_key'];

/** The rate-limit bucket of a credential: the grant, the API key, the session, the client. */
export const credentialBucket = (p: Principal) => `${p.credential}:${p.credentialId ?? p.id}`;

export interface AuthenticateDeps {
  /**
   * Tried in order; the first whose `accepts(token)` is true owns the token. They are listed once, in
   * `createAuthenticators` (src/auth/index.ts). A token no authenticator accepts is `invalid_token`.
   */
  authenticators: Authenticator[];
  rateLimit: ApiRateLimiter;
  /** The account-wide budget (all of an account's credentials), applied after `rateLimit`. */
  accountRateLimit: ApiRateLimiter;
}

/**
 * First step of every /v1 route: `Authorization: Bearer <token>` (or `DPoP <token>` with a `DPoP` proof
 * header, for access tokens bound to a key: RFC 9449) → `ctx.state.principal`, then the request is
 * counted against that credential's rate limit, then against its account's request budget. Without an Authorization header, a browser
 * credential (the dashboard's session cookie, CSRF-checked on unsafe methods) is accepted instead. No credential → 401 `unauthorized`; a
 * credential that is malformed, of unknown kind, badly signed, expired or revoked → 401 `invalid_token`
 * (both with `WWW-Authenticate`). Failed attempts count against the caller's IP address.
 */
export function createAuthenticate({ authenticators, rateLimit, accountRateLimit }: AuthenticateDeps): ApiMiddleware {
  const authenticate = async (ctx: ApiContext, next: Next) => {
    let principal: Principal;
    try {
      principal = await identify(ctx);
    } catch (err) {
      if (err instanceof AppError) await rateLimit(ctx, anonymousBucket(ctx));
      throw err;
    }
    ctx.state.principal = principal;
    ctx.state.recheckCredential = () => identify(ctx, { recheck: true });
    await rateLimit(ctx, credentialBucket(principal));
    await accountRateLimit(ctx, principal.accountId);
    await next();
  };

  async function identify(ctx: ApiContext, options: AuthenticateOptions = {}): Promise<Principal> {
    if (QUERY_CREDENTIALS.some((name) => name in ctx.query))
      throw invalidRequest('Credentials are not accepted in the query string; send them as Authorization: Bearer <token>.');
    const header = ctx.get('Authorization').trim();
    if (!header) {
      // No header: a browser credential (the dashboard session cookie), if the request carries one.
      for (const authenticator of authenticators) {
        const principal = await authenticator.fromCookies?.(ctx);
        if (principal) return principal;
      }
      throw unauthorized();
    }
    const [given, token, ...rest] = header.split(/\s+/);
    const scheme = given!.toLowerCase();
    if (scheme !== 'bearer' && scheme !== 'dpop') throw unauthorized('Only Bearer and DPoP credentials are accepted: Authorization: Bearer <token>.');
    if (!token || rest.length > 0 || token.length > 8192) throw invalidToken(`The Authorization header must be exactly "${scheme === 'dpop' ? 'DPoP' : 'Bearer'} <token>".`);
    const authenticator = authenticators.find((a) => a.accepts(token));
    if (!authenticator) throw invalidToken('This is not a credential Slipway issues.');
    // RFC 9449: only OAuth access tokens can be bound to a DPoP key; API keys and sessions are Bearer.
    if (scheme === 'dpop' && authenticator.name !== 'access_token') throw invalidToken('Only OAuth access tokens bound to a DPoP key are sent as Authorization: DPoP.');
    return await authenticator.authenticate(token, ctx, scheme, options);
  }

  return documented(authenticate, (op) => {
    op.authenticated = true;
    op.errors.add('unauthorized').add('invalid_token').add('invalid_dpop_proof').add('use_dpop_nonce').add('invalid_request');
  });
}
