import { createHash, hkdfSync, timingSafeEqual } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Context } from 'koa';
import type { Config } from '../config/index.ts';
import { DPOP_ALGORITHMS, invalidDpopProof, useDpopNonce } from '../errors.ts';
import type { DpopProofRepository } from '../repositories/dpopProofs.ts';

/** RFC 9449 §11.1: how far a proof's `iat` may be from now (either way) when it carries no nonce. */
export const DPOP_IAT_WINDOW_SECONDS = 60;
/** A nonce is valid for this many seconds around the time it was issued (steps of NONCE_STEP_SECONDS). */
const NONCE_STEP_SECONDS = 60;
/** Proofs larger than this are not parsed. */
const MAX_PROOF_LENGTH = 4096;

/**
 * Stateless server nonces (RFC 9449 §8): HKDF(secret, time step) for the current minute's neighbours,
 * computed exactly as oidc-provider computes its own (`features.dPoP.nonceSecret`, src/oauth/provider/configuration.ts,
 * same secret), so a nonce from the token endpoint is good at /v1 and the other way round, on every
 * instance that has the same keys. A nonce is accepted for about ±2 minutes.
 */
export class DpopNonces {
  readonly #secret: Buffer;
  #step = Number.NaN;
  #window: string[] = [];

  constructor(secret: Buffer) {
    this.#secret = secret;
  }

  #values(): string[] {
    const step = Math.floor(Date.now() / 1000 / NONCE_STEP_SECONDS);
    if (step !== this.#step) {
      this.#step = step;
      this.#window = [step - 2, step - 1, step, step + 1, step + 2].map((s) => {
        const salt = Buffer.alloc(8);
        salt.writeBigUInt64BE(BigInt(s));
        return Buffer.from(hkdfSync('sha256', this.#secret, salt, 'DPoP', 32)).toString('base64url');
      });
    }
    return this.#window;
  }

  next(): string {
    return this.#values()[3]!;
  }

  check(nonce: string): boolean {
    const given = Buffer.from(nonce);
    let ok = false;
    for (const value of this.#values()) {
      const expected = Buffer.from(value);
      if (expected.length === given.length && timingSafeEqual(expected, given)) ok = true;
    }
    return ok;
  }
}

/** A proof key as imported for verification, with its thumbprint (RFC 7638). */
interface ProofKey {
  key: Awaited<ReturnType<typeof importJWK>>;
  thumbprint: string;
}

/**
 * Proof keys imported once and held (a client signs every proof with the same key): the JWK's public
 * members and the `alg` name the entry, so a header with another key or algorithm imports its own.
 * What is held is public. At most 10,000 keys.
 */
const proofKeys = new LRUCache<string, Promise<ProofKey>>({ max: 10_000 });

function proofKey(jwk: JWK, alg: unknown): Promise<ProofKey> {
  const name = JSON.stringify([alg, jwk.kty, jwk.crv, jwk.x, jwk.y, jwk.n, jwk.e]);
  let held = proofKeys.get(name);
  if (!held) {
    held = (async () => {
      if (typeof alg !== 'string') throw invalidDpopProof('The DPoP proof needs an alg.');
      const key = await importJWK({ ...jwk, ext: true }, alg);
      if (key instanceof Uint8Array || key.type !== 'public') throw invalidDpopProof('The DPoP proof must carry a public key in its header.');
      return { key, thumbprint: await calculateJwkThumbprint(jwk) };
    })();
    // A key that does not import is not held: the next proof with it is refused the same way.
    held.catch(() => proofKeys.delete(name));
    proofKeys.set(name, held);
  }
  return held;
}

export interface DpopVerifierDeps {
  config: Pick<Config, 'publicUrl' | 'dpopNonceRequired'>;
  nonceSecret: Buffer;
  proofs: Pick<DpopProofRepository, 'claim'>;
}

export type DpopVerifier = (ctx: Context, accessToken: string, jkt: string) => Promise<void>;

/**
 * Checks the `DPoP` header of a /v1 request made with a DPoP-bound access token (RFC 9449 §4.3, §7.1):
 * one proof JWT, `typ: dpop+jwt`, an asymmetric algorithm we accept, signed by the public key in its
 * header, whose thumbprint is the token's `cnf.jkt`; `htm` = the request method; `htu` = PUBLIC_URL +
 * the request path (never the Host header; query and fragment ignored); `ath` = SHA-256 of the token;
 * `iat` within DPOP_IAT_WINDOW_SECONDS of now, or a nonce of ours (required when DPOP_NONCE_REQUIRED);
 * and a `jti` never presented before with this key, claimed last with one unique insert shared by every
 * instance. Throws `invalid_dpop_proof` or `use_dpop_nonce` (with a `DPoP-Nonce` header).
 */
export function createDpopVerifier({ config, nonceSecret, proofs }: DpopVerifierDeps): DpopVerifier {
  const nonces = new DpopNonces(nonceSecret);
  const base = new URL(config.publicUrl);
  return async (ctx, accessToken, jkt) => {
    const proof = ctx.get('DPoP');
    if (!proof) throw invalidDpopProof('A DPoP-bound access token needs a DPoP proof in the DPoP header.');
    if (proof.length > MAX_PROOF_LENGTH || proof.includes(',')) throw invalidDpopProof('The DPoP header must hold exactly one proof.');
    let payload: JWTPayload & { htm?: unknown; htu?: unknown; ath?: unknown; nonce?: unknown };
    let thumbprint: string;
    try {
      const header = decodeProtectedHeader(proof);
      if (!header.jwk || typeof header.jwk !== 'object' || 'd' in header.jwk) throw invalidDpopProof('The DPoP proof must carry a public key in its header.');
      if (typeof header.alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(header.alg)) throw invalidDpopProof('The DPoP proof is not a valid dpop+jwt signed with ES256, Ed25519 or EdDSA by the key in its header.');
      // The key in the header, imported once per key (proofKeys); the signature is verified every time.
      const held = await proofKey(header.jwk, header.alg);
      ({ payload } = await jwtVerify(proof, held.key, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGORITHMS] }));
      thumbprint = held.thumbprint;
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'invalid_dpop_proof') throw err;
      throw invalidDpopProof('The DPoP proof is not a valid dpop+jwt signed with ES256, Ed25519 or EdDSA by the key in its header.');
    }
    if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 256) throw invalidDpopProof('The DPoP proof needs a jti.');
    if (typeof payload.iat !== 'number') throw invalidDpopProof('The DPoP proof needs an iat.');
    if (payload.htm !== ctx.method) throw invalidDpopProof(`The DPoP proof is for another method (htm must be ${ctx.method}).`);
    if (typeof payload.htu !== 'string' || !sameResource(payload.htu, base, requestPath(ctx))) throw invalidDpopProof('The DPoP proof is for another URL (htu).');
    if (payload.ath !== createHash('sha256').update(accessToken).digest('base64url')) throw invalidDpopProof('The DPoP proof is not for this access token (ath).');
    if (thumbprint !== jkt) throw invalidDpopProof('The DPoP proof is signed by another key than the one this token is bound to.');

    const now = Date.now() / 1000;
    if (payload.nonce !== undefined) {
      if (typeof payload.nonce !== 'string' || !nonces.check(payload.nonce)) throw useDpopNonce(nonces.next(), 'The DPoP nonce is unknown or too old; use the one in DPoP-Nonce.');
      // A proof with a valid nonce may have been made a little while ago; its iat still may not be far off.
      if (Math.abs(now - payload.iat) > 5 * NONCE_STEP_SECONDS) throw invalidDpopProof('The DPoP proof iat is too far from now.');
    } else {
      if (config.dpopNonceRequired) throw useDpopNonce(nonces.next(), 'This server requires a DPoP nonce; send the proof again with the nonce from DPoP-Nonce.');
      if (Math.abs(now - payload.iat) > DPOP_IAT_WINDOW_SECONDS) throw useDpopNonce(nonces.next(), 'The DPoP proof iat is too far from now; use the nonce from DPoP-Nonce.');
    }
    // Single use, across instances: kept until a proof with this iat can no longer be accepted.
    const keepUntil = new Date((Math.max(now, payload.iat) + 5 * NONCE_STEP_SECONDS + 1) * 1000);
    if (!(await proofs.claim(jkt, payload.jti, keepUntil))) throw invalidDpopProof('This DPoP proof was already used (jti).');
    // RFC 9449 §8.2: a fresh nonce for the next proof, whenever the client is not already using it.
    if (payload.nonce !== nonces.next()) ctx.set('DPoP-Nonce', nonces.next());
  };
}

/** The path as received, whatever router the request went through (ctx.path may be relative to a mount). */
const requestPath = (ctx: Context) => new URL(ctx.originalUrl, 'http://path.invalid').pathname;

/** `htu` names PUBLIC_URL's origin and this request's path (RFC 9449 §4.3: without query and fragment). */
function sameResource(htu: string, base: URL, path: string): boolean {
  const url = URL.parse(htu);
  if (!url) return false;
  const basePath = base.pathname.replace(/\/$/, '');
  return url.origin === base.origin && url.pathname === `${basePath}${path}`;
}
