import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { SCOPE_ORDER } from '../../domain/principal.ts';

/** OpenID Connect sign-in (who the user is); the API scopes (SCOPE_ORDER) say what the app may do in /v1. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;
/** Every scope a client can be granted. */
export const KNOWN_SCOPES = new Set<string>([...OIDC_SCOPES, 'offline_access', ...SCOPE_ORDER]);

/**
 * Requested scopes must all be known, and the API scopes among them must be allowed for the client.
 * oidc-provider passes unrecognised scopes through silently, so this is where they are refused: it runs
 * after the client and redirect URI are validated (./resources.ts), so the error reaches the client the
 * OAuth way.
 */
export function assertRequestedScopes(ctx: KoaContextWithOIDC, clientScope: string | undefined): void {
  const requested = typeof ctx.oidc.params?.scope === 'string' ? ctx.oidc.params.scope.split(' ').filter(Boolean) : [];
  const unknown = requested.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) throw new errors.InvalidScope('requested scope is not supported', unknown.join(' '));
  const allowed = new Set((clientScope ?? SCOPE_ORDER.join(' ')).split(' '));
  const refused = requested.filter((s) => (SCOPE_ORDER as readonly string[]).includes(s) && !allowed.has(s));
  if (refused.length) throw new errors.InvalidScope('requested scope is not allowed for this client', refused.join(' '));
}
