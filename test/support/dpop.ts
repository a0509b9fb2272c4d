import { createHash, generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** A client's DPoP key (ES256 unless asked for Ed25519), its public JWK and thumbprint. */
export interface DpopKey {
  alg: 'ES256' | 'Ed25519';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  thumbprint: string;
}

export async function newDpopKey(alg: DpopKey['alg'] = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { alg, privateKey, publicKey, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk) };
}

/**
 * A compact JWS over exactly these header and payload bytes, signed with `key` by node:crypto (for
 * proofs that jose would refuse to make: a `crit` header, a payload that is no JSON object).
 */
export function signCompact(key: DpopKey, header: Record<string, unknown>, payload: string): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
  const signature = sign(key.alg === 'ES256' ? 'sha256' : null, Buffer.from(input), { key: KeyObject.from(key.privateKey), dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export interface ProofClaims {
  htm: string;
  htu: string;
  /** The access token the proof goes with (its SHA-256 becomes `ath`). */
  accessToken?: string;
  nonce?: string;
  jti?: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
}

/** A DPoP proof JWT made by hand (RFC 9449 §4.2), for cases openid-client would never produce. */
export async function dpopProof(key: DpopKey, claims: ProofClaims): Promise<string> {
  const payload: Record<string, unknown> = { htm: claims.htm, htu: claims.htu, jti: claims.jti ?? randomUUID(), iat: claims.iat ?? Math.floor(Date.now() / 1000) };
  if (claims.accessToken) payload.ath = createHash('sha256').update(claims.accessToken).digest('base64url');
  if (claims.nonce) payload.nonce = claims.nonce;
  return await new SignJWT(payload).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk }).sign(key.privateKey);
}

/** GET (or another method) on /v1 with `Authorization: DPoP` and a proof. */
export async function dpopCall(base: string, path: string, accessToken: string, proof: string | undefined, method = 'GET', scheme = 'DPoP'): Promise<Response> {
  return await fetch(`${base}${path}`, { method, headers: { authorization: `${scheme} ${accessToken}`, ...(proof ? { dpop: proof } : {}) } });
}

/**
 * A proof signed synchronously with node:crypto (for load generators whose per-request hook cannot
 * await): the same claims as dpopProof, ES256 (P-256, IEEE P1363 signature).
 */
export interface SyncDpopKey {
  privateKey: KeyObject;
  publicJwk: JWK;
}

export function newSyncDpopKey(): SyncDpopKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  return { privateKey, publicJwk: { kty, crv, x, y } as JWK };
}

export function dpopProofSync(key: SyncDpopKey, claims: ProofClaims): string {
  const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk })).toString('base64url');
  const payload: Record<string, unknown> = { htm: claims.htm, htu: claims.htu, jti: claims.jti ?? randomUUID(), iat: claims.iat ?? Math.floor(Date.now() / 1000) };
  if (claims.accessToken) payload.ath = createHash('sha256').update(claims.accessToken).digest('base64url');
  if (claims.nonce) payload.nonce = claims.nonce;
  const signingInput = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `${signingInput}.${signature}`;
}
