import { decodeJwt } from 'jose';
import type Provider from 'oidc-provider';
import { currentRequest } from './currentRequest.ts';
import { replaceReplayCheck } from './internals.ts';
import type { ProviderStorage } from './storage.ts';

/**
 * How far from now oidc-provider accepts a proof's `iat` when it carries no nonce, either way (its
 * CHALLENGE_OK_WINDOW). A proof with a nonce is accepted while the nonce is, which ends within this
 * long of now too.
 */
export const PROVIDER_PROOF_WINDOW_SECONDS = 300;

/**
 * DPoP proofs at the token endpoint (and userinfo) are single use across instances: oidc-provider's own
 * check is a find, then a save, which two concurrent requests both pass. The same unique insert as /v1's
 * replay cache (`dpop_proofs`), keyed apart from it by a prefix; swept with it. ReplayDetection serves
 * nothing else here (no JWT client authentication, no attestation).
 *
 * RFC 9449 §11.1: the claim is kept as long as the proof could be accepted, until max(now, iat) + the
 * window. oidc-provider asks to keep it until now + the window only (`exp`), so a proof dated up to 300 s
 * ahead could be presented again once that had passed while its `iat` was still acceptable (a proof
 * dated now + 290 s, replayed 375 s after its first use). The `iat` is the one of the request's proof
 * (oidc-provider has verified it before it asks); never later than `exp` + the window, which is as far
 * as an acceptable `iat` reaches (a proof with a nonce is not checked for its `iat`, but the nonce
 * ends before `exp`).
 */
export function claimProofsOnce(provider: Provider, repos: Pick<ProviderStorage, 'dpopProofs'>): void {
  replaceReplayCheck(provider, async (iss, jti, exp) => {
    const iat = proofIat(jti);
    const keepUntil = iat === undefined ? exp + PROVIDER_PROOF_WINDOW_SECONDS : Math.min(Math.max(exp, Math.ceil(iat) + PROVIDER_PROOF_WINDOW_SECONDS), exp + PROVIDER_PROOF_WINDOW_SECONDS);
    return await repos.dpopProofs.claim(`oauth:${iss}`, jti, new Date(keepUntil * 1000));
  });
}

/** The `iat` of the current request's DPoP proof, if it is the proof with this `jti`. */
function proofIat(jti: string): number | undefined {
  const proof = currentRequest()?.get('DPoP');
  if (!proof) return undefined;
  try {
    const payload = decodeJwt(proof);
    return payload.jti === jti && typeof payload.iat === 'number' && Number.isFinite(payload.iat) ? payload.iat : undefined;
  } catch {
    return undefined;
  }
}
