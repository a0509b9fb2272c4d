import type { Db } from 'mongodb';
import { Leases, type EndingClaim } from '../db/claims.ts';

/**
 * The event streams a credential holds open (docs/product.md §10: at most LOG_STREAMS_PER_CREDENTIAL,
 * across every instance): `${credential bucket}#${n}`, one lease per place, held by the stream that
 * claimed it (src/db/claims.ts) and renewed by it while it stays open. A stream whose instance died
 * leaves its place taken until the lease ends, then it is taken over.
 */
export type LogStreamSlotDoc = EndingClaim;

/** Ended places (of instances that died) are swept an hour after they ended. */
const KEEP_MS = 3600 * 1000;

export class LogStreamSlotRepository extends Leases {
  constructor(db: Db) {
    super(db.collection<LogStreamSlotDoc>('log_stream_slots'), KEEP_MS);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /**
   * Moves the end of a place its holder still holds (the one with end `from`); false when it is no longer
   * this holder's (it ended and was taken over). Only the holder writes its own place.
   */
  async renew(id: string, from: Date, to: Date): Promise<boolean> {
    const { matchedCount } = await this.collection.updateOne({ _id: String(id), expires_at: from }, { $set: { expires_at: to } });
    return matchedCount === 1;
  }
}
