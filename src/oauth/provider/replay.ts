import type Provider from 'oidc-provider';
import type { ProviderStorage } from './storage.ts';

/**
 * DPoP proofs at the token endpoint (and userinfo) are single use across instances: oidc-provider's own
 * check is a find, then a save, which two concurrent requests both pass. The same unique insert as /v1's
 * replay cache (`dpop_proofs`), keyed apart from it by a prefix; swept with it. ReplayDetection serves
 * nothing else here (no JWT client authentication, no attestation).
 */
export function claimProofsOnce(provider: Provider, repos: Pick<ProviderStorage, 'dpopProofs'>): void {
  (provider.ReplayDetection as unknown as { unique(iss: string, jti: string, exp: number): Promise<boolean> }).unique = async (iss, jti, exp) =>
    await repos.dpopProofs.claim(`oauth:${iss}`, jti, new Date(exp * 1000));
}
