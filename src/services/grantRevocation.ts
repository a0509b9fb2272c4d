import type { Repositories } from '../repositories/index.ts';
import { Service } from './service.ts';

/**
 * Ends OAuth grants for good. Each grant is first listed in `revoked_grants` (access tokens are JWTs
 * that are never stored, so that list is how /v1 refuses them), then the grant and everything issued
 * from it (refresh tokens, codes) are deleted, so no new token can be minted from it.
 */
export class GrantRevocation extends Service<Pick<Repositories, 'revokedGrants' | 'oidcArtifacts'>> {
  /** Revokes each grant once; returns how many distinct grants there were. */
  async revoke(grantIds: Iterable<string>): Promise<number> {
    const unique = [...new Set(grantIds)].filter((id) => typeof id === 'string' && id.length > 0);
    const at = new Date();
    for (const grantId of unique) {
      await this.deps.revokedGrants.add(grantId, at);
      await this.deps.oidcArtifacts.deleteGrant(grantId);
    }
    return unique.length;
  }
}
