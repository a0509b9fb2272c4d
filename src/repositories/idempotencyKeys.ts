import type { Collection, Db } from 'mongodb';
import { claimOnce, sweepEnded } from '../db/claims.ts';

export interface StoredResponse {
  status: number;
  /** The JSON body as text: stored documents never carry client-chosen field names. */
  body: string;
  location: string | null;
}

/**
 * `pending`: a request is running under the key (or died while running); `done`: its response is
 * stored; `failed`: it ended in an error, so a retry runs it again.
 */
export type IdempotencyState = 'pending' | 'done' | 'failed';

export interface IdempotencyDoc {
  /** SHA-256 of the credential's scope and the client's key. */
  _id: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  fingerprint: string;
  state: IdempotencyState;
  /**
   * The id of the resource the request creates, fixed when the key is reserved and used by every run
   * of the request: a run after a crash finds what an earlier run made instead of making a second one.
   */
  resource_id?: string | null;
  response: StoredResponse | null;
  created_at: Date;
  /** When a run last started (the first one, or a takeover). Older records have only `created_at`. */
  claimed_at?: Date;
  expires_at: Date;
}

/** How long a key is remembered (docs/product.md §6). Expired records are removed by the sweeper. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

export const claimedAt = (doc: IdempotencyDoc) => doc.claimed_at ?? doc.created_at;

/**
 * One record per `Idempotency-Key`. Everything that must hold across concurrent requests or instances
 * rests on the claim of the key (src/db/claims.ts); the updates below are single-document writes that FerretDB
 * 1.24 does not apply atomically, so nothing depends on which of two concurrent updates wins: a
 * request that runs again reuses `resource_id`, and the services answer such a run with what the first
 * made.
 */
export class IdempotencyKeyRepository {
  readonly collection: Collection<IdempotencyDoc>;
  constructor(db: Db) {
    this.collection = db.collection<IdempotencyDoc>('idempotency_keys');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /**
   * Claims the key (exactly one concurrent caller wins). Returns null when claimed, else the live
   * record that holds it. An expired record is removed first.
   */
  async reserve(id: string, fingerprint: string, resourceId: string | null = null, now = new Date()): Promise<IdempotencyDoc | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await claimOnce(this.collection, {
        _id: id,
        fingerprint,
        state: 'pending',
        resource_id: resourceId,
        response: null,
        created_at: now,
        claimed_at: now,
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      });
      if (claimed) return null;
      const existing = await this.find(id, now);
      if (existing) return existing;
      await this.collection.deleteOne({ _id: id, expires_at: { $lte: now } });
    }
    throw new Error('could not reserve the idempotency key');
  }

  /** The key's record unless it has expired. */
  async find(id: string, now = new Date()): Promise<IdempotencyDoc | null> {
    const doc = await this.collection.findOne({ _id: id });
    return doc && doc.expires_at > now ? doc : null;
  }

  /** A retry runs the request again (after a failure, or a run that never finished). */
  async claim(id: string, now = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { state: 'pending', claimed_at: now } });
  }

  async complete(id: string, response: StoredResponse): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $set: { state: 'done', response } });
  }

  /** The request failed: a retry runs it again, under the same resource id. */
  async fail(id: string): Promise<void> {
    await this.collection.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'failed' } });
  }

  /** Forgets a pending record whose request failed (the dashboard's one-time form tokens). */
  async release(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id, state: 'pending' });
  }

  /** Forgets a failed record, so the key can be used for another request. */
  async forget(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id, state: 'failed' });
  }

  async sweep(now = new Date()): Promise<number> {
    return await sweepEnded(this.collection, now);
  }
}
