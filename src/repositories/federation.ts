import type { Collection, Db } from 'mongodb';
import { claimOnce, sweepEnded, writeUnique } from '../db/claims.ts';
import { sha256Hex } from '../lib/hash.ts';

/**
 * What the token exchange (docs/product.md §13) keeps across instances:
 * - `federation_jtis`: every subject token's (`iss`, `jti`) exchanged, a claim (src/db/claims.ts) kept
 *   until the token expires, so a token is exchanged once however many instances it is sent to at once;
 * - `federation_issuer_keys`: the public keys last fetched for an issuer (or the failure), shared so
 *   one fetch serves every instance;
 * - `federation_key_fetches`: one claim per (issuer, generation of its keys): of the instances that
 *   find the keys stale or missing a `kid`, exactly one fetches.
 */
interface JtiDoc {
  _id: string;
  expires_at: Date;
}

export interface IssuerKeysDoc {
  _id: string;
  /** The JWKS as fetched (public keys only), or null when the last fetch failed. */
  jwks: { keys: Record<string, unknown>[] } | null;
  /** By the server's clock (src/lib/clock.ts). */
  fetched_at: Date;
  /** Why the last fetch failed, for the log. */
  error: string | null;
}

interface FetchClaimDoc {
  _id: string;
  expires_at: Date;
}

export class FederationRepository {
  readonly jtis: Collection<JtiDoc>;
  readonly keys: Collection<IssuerKeysDoc>;
  readonly fetches: Collection<FetchClaimDoc>;

  constructor(db: Db) {
    this.jtis = db.collection<JtiDoc>('federation_jtis');
    this.keys = db.collection<IssuerKeysDoc>('federation_issuer_keys');
    this.fetches = db.collection<FetchClaimDoc>('federation_key_fetches');
  }

  async ensureIndexes(): Promise<void> {
    await this.jtis.createIndex({ expires_at: 1 }, { name: 'expires_at' });
    await this.fetches.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /** True for the first exchange of (issuer, jti) on any instance; false ever after (until it expired). */
  async claimJti(issuer: string, jti: string, expiresAt: Date): Promise<boolean> {
    return await claimOnce(this.jtis, { _id: sha256Hex(`${issuer}\n${jti}`), expires_at: expiresAt });
  }

  async findKeys(issuer: string): Promise<IssuerKeysDoc | null> {
    return await this.keys.findOne({ _id: String(issuer) });
  }

  /**
   * True for the one caller (on any instance) that may fetch `issuer`'s keys after the generation
   * fetched at `generation` (null: never fetched).
   */
  async claimFetch(issuer: string, generation: Date | null, keepUntil: Date): Promise<boolean> {
    return await claimOnce(this.fetches, { _id: sha256Hex(`${issuer}\n${generation?.toISOString() ?? 'first'}`), expires_at: keepUntil });
  }

  async saveKeys(doc: IssuerKeysDoc): Promise<void> {
    // Only a fetch claim's holder writes; a first insert racing an older holder's is an answer, not an error.
    await writeUnique(
      () => this.keys.replaceOne({ _id: doc._id }, doc, { upsert: true }),
      () => this.keys.replaceOne({ _id: doc._id }, doc),
    );
  }

  async sweep(now: Date): Promise<number> {
    return (await sweepEnded(this.jtis, now)) + (await sweepEnded(this.fetches, now));
  }
}
