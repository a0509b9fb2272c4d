import type { Db } from 'mongodb';
import { Leases, type EndingClaim } from '../db/claims.ts';

/**
 * The event streams a credential holds open (docs/product.md §10: at most LOG_STREAMS_PER_CREDENTIAL,
 * across every instance): `${credential bucket}#${n}`, one lease per place, held by the stream that
 * claimed it (src/db/claims.ts) and renewed while it stays open (by its instance, all its places in one
 * command). A stream whose instance died
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
   * Moves the end of the places an instance holds, in one command while every one is still its holder's
   * (the usual case): each place `{ id, from }` whose end is still `from` (the end its holder gave it)
   * moves to `to`. Answers the ids that now end at `to`; a place that ended and was taken over is not
   * among them (a second command finds which). Only the holder writes its own place.
   */
  async renewAll(places: { id: string; from: Date }[], to: Date): Promise<Set<string>> {
    if (places.length === 0) return new Set();
    const byEnd = new Map<number, string[]>();
    for (const { id, from } of places) {
      const ids = byEnd.get(from.getTime()) ?? [];
      ids.push(String(id));
      byEnd.set(from.getTime(), ids);
    }
    const filter = { $or: [...byEnd].map(([from, ids]) => ({ _id: { $in: ids }, expires_at: new Date(from) })) };
    const { matchedCount } = await this.collection.updateMany(filter, { $set: { expires_at: to } });
    const ids = places.map((p) => String(p.id));
    if (matchedCount === places.length) return new Set(ids);
    const now = await this.collection.find({ _id: { $in: ids } }, { projection: { expires_at: 1 } }).toArray();
    return new Set(now.filter((doc) => doc.expires_at.getTime() === to.getTime()).map((doc) => doc._id));
  }
}
