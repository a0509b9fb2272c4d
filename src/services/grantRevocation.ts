import type { OidcArtifactRepository } from '../repositories/oidc/index.ts';
import type { RevokedGrantRepository } from '../repositories/revokedGrants.ts';

export interface GrantRevocationDeps {
  revokedGrants: RevokedGrantRepository;
  oidcArtifacts: OidcArtifactRepository;
}

/**
 * Ends OAuth grants for good. Each grant is first listed in `revoked_grants` (access tokens are JWTs
 * that are never stored, so that list is how /v1 refuses them), then the grant and everything issued
 * from it (refresh tokens, codes) are deleted, so no new token can be minted from it.
 */
export async function revokeGrants(deps: GrantRevocationDeps, grantIds: Iterable<string>): Promise<number> {
  const unique = [...new Set(grantIds)].filter((id) => typeof id === 'string' && id.length > 0);
  const at = new Date();
  for (const grantId of unique) {
    await deps.revokedGrants.add(grantId, at);
    await deps.oidcArtifacts.deleteGrant(grantId);
  }
  return unique.length;
}
