import type { Clock } from '../../lib/clock.ts';
import type { Db } from 'mongodb';
import type { Config } from '../../config/index.ts';
import type { Logger } from '../../logger.ts';
import type { Repositories } from '../../repositories/index.ts';
import { createAdapterClass } from '../../repositories/oidc/index.ts';
import { revokedTokenKey } from '../../repositories/revokedGrants.ts';
import { currentRequest } from './currentRequest.ts';
import { AUTHORIZATION_CODE_TTL_SECONDS, DEVICE_CODE_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './lifetimes.ts';

/**
 * Everything the provider reads and writes besides its own artifacts, declared here once: the users it
 * signs in and the clients it serves (from memory, PRINCIPAL_CACHE_SECONDS), remembered consent, the
 * revocation list /v1 reads, DPoP proof claims, the token endpoint's counters and device code polls. The other parts of the
 * provider take what they need of it.
 */
export type ProviderStorage = Pick<Repositories, 'users' | 'oauthClients' | 'consents' | 'revokedGrants' | 'dpopProofs' | 'rateLimits' | 'deviceCodeLeases'>;

/**
 * The provider's adapter (src/repositories/oidc/): a revoked grant or access token is listed where /v1
 * looks (revokedGrants), single-use claims live as long as what they claim. Grants and unused refresh
 * tokens are answered from memory for at most REVOCATION_REFRESH_SECONDS (the bound a revocation made
 * elsewhere already has; one made here drops them at once), and a refresh token rotated in a request is
 * claimed by its successor's insert (the request is what ties the two together).
 */
export function createAdapter(db: Db, repos: Pick<ProviderStorage, 'oauthClients' | 'revokedGrants'>, config: Config, logger: Logger, clock?: Clock) {
  return createAdapterClass(db, repos.oauthClients, {
    onGrantRevoked: async (grantId) => {
      await repos.revokedGrants.add(grantId);
      logger.info({ grant_id: grantId }, 'grant revoked');
    },
    onAccessTokenRevoked: async (jti) => {
      await repos.revokedGrants.add(revokedTokenKey(jti));
      logger.info('access token revoked');
    },
    ttlSeconds: { AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS, DeviceCode: DEVICE_CODE_TTL_SECONDS, RefreshToken: REFRESH_TOKEN_TTL_SECONDS },
    refreshReuseGraceSeconds: config.oauthRefreshReuseGraceSeconds,
    holdMs: config.revocationRefreshSeconds * 1000,
    currentRequest,
    onGrantRevokedHere: (forget) => repos.revokedGrants.onRevoked(forget),
    ...(clock ? { clock } : {}),
  });
}
