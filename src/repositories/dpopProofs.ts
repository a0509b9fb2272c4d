import type { Collection, Db } from 'mongodb';
import { batchedClaims, sweepEnded } from '../db/claims.ts';
import { sha256Hex } from '../lib/hash.ts';

/**
 * DPoP proofs already presented (RFC 9449 §11.1): to /v1, one row per (key thumbprint, `jti`), under
 * `_id` = SHA-256 of both, kept while the proof's `iat` is inside the accepted window; to the
 * authorization server, one per (`oauth:` + client_id, `jti`) (its ReplayDetection, src/oauth/provider/replay.ts),
 * kept until max(now, iat) + oidc-provider's window. Each is a claim (src/db/claims.ts), so a proof is
 * accepted once across every instance however many requests carry it at the same time. A row outlives the window its proof is
 * accepted in (an older proof is refused for its `iat` anyway); the sweeper removes it after that.
 *
 * The claims of concurrent requests go to the database together (batchedClaims: one insert for every
 * proof that arrived while the previous insert was in flight, each refused or accepted on its own), so
 * under load a proof costs a share of one round trip, and alone it costs one, as before.
 */
interface DpopProofDoc {
  _id: string;
  expires_at: Date;
}

export class DpopProofRepository {
  readonly collection: Collection<DpopProofDoc>;
  readonly #claim: (doc: DpopProofDoc) => Promise<boolean>;
  constructor(db: Db) {
    this.collection = db.collection<DpopProofDoc>('dpop_proofs');
    this.#claim = batchedClaims(this.collection);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /** True for the first presentation of (scope, jti); false when it was presented before. */
  async claim(scope: string, jti: string, expiresAt: Date): Promise<boolean> {
    return await this.#claim({ _id: sha256Hex(`${scope}\n${jti}`), expires_at: expiresAt });
  }

  /** Until when the claim of (scope, jti) is kept; null when there is none (never presented, or swept). */
  async keptUntil(scope: string, jti: string): Promise<Date | null> {
    return (await this.collection.findOne({ _id: sha256Hex(`${scope}\n${jti}`) }))?.expires_at ?? null;
  }

  async sweep(now: Date): Promise<number> {
    return await sweepEnded(this.collection, now);
  }
}
