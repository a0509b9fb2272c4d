import type { Config } from '../config/index.ts';
import type { KeyMaterial } from '../keys/keystore.ts';
import type { Repositories } from '../repositories/index.ts';
import { createAccessTokenAuthenticator } from './accessTokens.ts';
import type { Authenticator } from './authenticators.ts';
import { RevokedGrantCache } from './revokedGrants.ts';

export interface AuthenticatorDeps {
  config: Config;
  keys: KeyMaterial;
  repos: Repositories;
}

/**
 * Every kind of /v1 credential, chosen by the token's shape (see `Authenticator.accepts`).
 * REGISTRATION POINT: add API keys (`slw_…`) and dashboard sessions (`slws_…`) by appending their
 * Authenticator here; `authenticate` and everything after it (scopes, rate limits, idempotency, 404 for
 * other accounts) then works for them unchanged. Shapes must not overlap.
 */
export function createAuthenticators({ config, keys, repos }: AuthenticatorDeps): Authenticator[] {
  const revokedGrants = new RevokedGrantCache(repos.revokedGrants, config.revocationRefreshSeconds);
  return [createAccessTokenAuthenticator({ config, keys, repos, revokedGrants })];
}
