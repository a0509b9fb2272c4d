import { DerivedKeys, openWithKeyFrom, sealWithKeyFrom } from '../../keys/secretBox.ts';

/**
 * What an artifact's stored form seals, each under a key derived (HKDF) from the value that looks it up:
 * the payload under the artifact's id, the id under a session's `uid` or a device `userCode`.
 */
export type SealPurpose = 'payload' | 'uid' | 'user_code';

/** The HKDF `info` of each purpose; part of the stored format (records written since ids were hashed). */
const info = (purpose: SealPurpose) => `slipway oidc ${purpose}`;

/** The record a sealed value belongs to (its AES-GCM associated data): it opens under no other. */
export const recordOf = (model: string, hashedId: string) => `${model}:${hashedId}`;

/**
 * Each secret's key is derived once and held (DerivedKeys): an artifact is sealed when it is saved and
 * opened on every presentation (a refresh token on each refresh, a grant, a session on each request of
 * its browser), so most seals and opens need no derivation. At most 20,000 keys, for at most 15 minutes.
 */
const derived = new DerivedKeys(20_000, 15 * 60 * 1000);

/** base64url(iv ‖ tag ‖ AES-256-GCM(text)), key = HKDF(secret), through the one secret box. */
export function sealUnder(purpose: SealPurpose, secret: string, record: string, text: string): string {
  return sealWithKeyFrom(secret, info(purpose), record, text, derived);
}

/** The text, or undefined when it does not open (another secret, another record, tampered with). */
export function openUnder(purpose: SealPurpose, secret: string, record: string, sealed: string): string | undefined {
  return openWithKeyFrom(secret, info(purpose), record, sealed, derived);
}
