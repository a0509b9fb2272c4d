import type { Config } from '../config/index.ts';
import { dpopNonceSecret, type KeyMaterial } from '../keys/keystore.ts';
import type { Changes } from '../lib/changes.ts';
import type { Clock } from '../lib/clock.ts';
import type { Repositories } from '../repositories/index.ts';
import type { SessionService } from '../services/sessions.ts';
import { createAccessTokenAuthenticator } from './accessTokens.ts';
import { createApiKeyAuthenticator } from './apiKeyAuthenticator.ts';
import type { Authenticator } from './authenticators.ts';
import { createDpopVerifier } from './dpop.ts';
import { RevokedGrantCache } from './revokedGrants.ts';
import { createSessionAuthenticator } from './sessionAuthenticator.ts';

export interface AuthenticatorDeps {
  config: Config;
  keys: KeyMaterial;
  repos: Repositories;
  /**
   * Dashboard sessions, shared with the dashboard's own routes (so a logout there is refused here at
   * once). Without it, session tokens are refused like any unknown credential.
   */
  sessions?: SessionService;
  /** The process's change emitter (keys revoked or rotated here leave the key cache at once). */
  changes: Changes;
  /** Expiries (access tokens, API keys) and cache bounds are measured by it (src/lib/clock.ts). */
  clock: Clock;
}

/**
 * Every kind of /v1 credential, chosen by the token's shape (see `Authenticator.accepts`): OAuth access
 * tokens (JWTs), dashboard sessions (`slws_…`) and API keys (`slw_…`). A new kind is one more
 * Authenticator appended here; `authenticate` and everything after it (scopes, rate limits,
 * idempotency, 404 for other accounts) then works for it unchanged. Shapes must not overlap.
 */
export function createAuthenticators({ config, keys, repos, sessions, changes, clock }: AuthenticatorDeps): Authenticator[] {
  const revokedGrants = new RevokedGrantCache(repos.revokedGrants, config.revocationRefreshSeconds, changes, clock);
  const verifyDpop = createDpopVerifier({ config, nonceSecret: dpopNonceSecret(keys), proofs: repos.dpopProofs });
  const authenticators = [createAccessTokenAuthenticator({ config, keys, repos, revokedGrants, verifyDpop, clock })];
  // Dashboard session tokens: `slws_…` as Bearer, or the session cookie (CSRF-checked on unsafe methods).
  if (sessions) authenticators.push(createSessionAuthenticator(sessions));
  // API keys: `slw_…`, cached per instance for at most principalCacheSeconds (≤ 30 s), so a key revoked
  // on another instance is refused within that bound; revocations made here take effect at once.
  authenticators.push(createApiKeyAuthenticator(repos, { cacheTtlMs: config.principalCacheSeconds * 1000, changes, now: () => clock.now() }));
  return authenticators;
}
