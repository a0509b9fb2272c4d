import type { Context } from 'koa';
import { forbidden, invalidToken } from '../errors.ts';
import { SESSION_COOKIE, SESSION_PREFIX, type SessionService } from '../services/sessions.ts';
import { sameSecret } from '../lib/hash.ts';
import type { Authenticator } from './authenticators.ts';
import type { Principal } from '../domain/principal.ts';

/** Methods that change nothing; every other method sent with the cookie must prove it came from our page. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The header a dashboard page's script (or any same-origin caller) puts the session's CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * Dashboard session tokens on /v1 (docs/product.md §2): as `Authorization: Bearer slws_…` (no CSRF needed: a
 * header is never attached by the browser on its own), or as the `slipway_session` cookie when there is
 * no Authorization header, in which case POST/PUT/PATCH/DELETE must carry the session's CSRF token in
 * `X-CSRF-Token` (else 403 `forbidden`). The principal is the user with their role's full scopes.
 */
export function createSessionAuthenticator(sessions: SessionService): Authenticator {
  const refused = () => invalidToken('The session is invalid, expired or signed out.');
  return {
    name: 'session',
    accepts: (token) => token.startsWith(SESSION_PREFIX),
    async authenticate(token) {
      const found = await sessions.authenticate(token);
      if (!found) throw refused();
      return found.principal;
    },
    async fromCookies(ctx: Context): Promise<Principal | null> {
      const token = ctx.cookies.get(SESSION_COOKIE);
      if (!token) return null;
      const found = await sessions.authenticate(token);
      if (!found) throw refused();
      if (!SAFE_METHODS.has(ctx.method) && !sameSecret(found.session.csrf_token, ctx.get(CSRF_HEADER)))
        throw forbidden(`A request authenticated by the session cookie must send the session's CSRF token in ${CSRF_HEADER}.`);
      return found.principal;
    },
  };
}
