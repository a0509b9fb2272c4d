import type { Collection, Db } from 'mongodb';
import { claimOnce, sweepEnded, writeUnique } from '../db/claims.ts';

interface CounterDoc {
  _id: string;
  count: number;
  expires_at: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Hits in the window so far, this one included. */
  count: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * A numbered share of a window's budget (`<counter>:s<n>`), owned by whoever inserted it; or the hint
 * `<counter>:next` telling how far the shares are taken.
 */
interface ShareDoc {
  _id: string;
  next?: number;
  expires_at: Date;
}

/** Hits on one counter that reach the database as one `$inc`; `total` is the count after it. */
interface Batch {
  size: number;
  total: Promise<number>;
}

/**
 * Fixed-window counters kept in MongoDB, so every instance shares them. Windows are keyed by their
 * start; old ones are removed by the sweeper (no TTL index, which FerretDB lacks).
 */
export class RateLimitRepository {
  readonly collection: Collection<CounterDoc>;
  readonly #shares: Collection<ShareDoc>;
  /** Per counter: the batch still taking hits, and the last batch sent (see #count). */
  readonly #waiting = new Map<string, Batch>();
  readonly #inFlight = new Map<string, Promise<number>>();
  constructor(db: Db) {
    this.collection = db.collection<CounterDoc>('rate_limits');
    this.#shares = db.collection<ShareDoc>('rate_limits');
  }

  /**
   * Claims share `index` of a counter's window (src/db/claims.ts): true if this caller got it, false if
   * someone (any instance) had it already. Exact across instances, unlike `$inc` on FerretDB 1.24.
   */
  async claimShare(counter: string, index: number, expiresAt: Date): Promise<boolean> {
    return await claimOnce(this.#shares, { _id: `${counter}:s${index}`, expires_at: expiresAt });
  }

  /** Where the next free share probably is: every share below it is taken. Only a hint; 0 if none. */
  async shareHint(counter: string): Promise<number> {
    const doc = await this.#shares.findOne({ _id: `${counter}:next` });
    return doc?.next ?? 0;
  }

  /** Records that shares below `next` are taken (a lost or late update only costs extra probes). */
  async raiseShareHint(counter: string, next: number, expiresAt: Date): Promise<void> {
    // Two upserts of a new hint at once: the one that lost to the other's insert is only a late hint.
    await writeUnique(
      () => this.#shares.updateOne({ _id: `${counter}:next` }, { $max: { next }, $setOnInsert: { expires_at: expiresAt } }, { upsert: true }),
      () => undefined,
    );
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /** Counts `weight` hits (default one). */
  async hit(key: string, limit: number, windowSeconds: number, now = Date.now(), weight = 1): Promise<RateLimitResult> {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const count = await this.#count(`${key}:${start}`, new Date(start + windowMs), weight);
    return {
      allowed: count <= limit,
      limit,
      count,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
    };
  }

  /**
   * FerretDB 1.24 applies `$inc` as read-modify-write, so concurrent increments of one counter are lost
   * (40 parallel hits counted as 5), and parallel requests would slip past any limit. Within this
   * process, hits on one counter therefore go to the database one batch at a time: hits that arrive
   * while a batch is in flight join the next one, which adds its size in a single `$inc`. MongoDB is
   * atomic anyway, so several instances stay exact there.
   */
  #count(id: string, expiresAt: Date, weight: number): Promise<number> {
    let batch = this.#waiting.get(id);
    if (!batch) {
      const created: Batch = { size: 0, total: Promise.resolve(0) };
      const previous = this.#inFlight.get(id) ?? Promise.resolve(0);
      created.total = previous
        .catch(() => 0)
        .then(() => {
          if (this.#waiting.get(id) === created) this.#waiting.delete(id);
          return this.#increment(id, created.size, expiresAt);
        });
      this.#waiting.set(id, created);
      this.#inFlight.set(id, created.total);
      const forget = () => {
        if (this.#inFlight.get(id) === created.total) this.#inFlight.delete(id);
      };
      created.total.then(forget, forget);
      batch = created;
    }
    const joined = batch;
    const position = joined.size;
    joined.size += weight;
    return joined.total.then((total) => total - joined.size + position + weight);
  }

  /**
   * Adds `by` to the window's counter and returns the new count. Not an upsert: FerretDB 2 on DocumentDB
   * answers concurrent upserts of one new `_id` each as if it had inserted the document, and keeps one
   * (40 upserts with `$inc: 1` at once left counts from 4 to 40), so the first hits of a window on two
   * instances would each count from zero. An increment of an existing counter is atomic on every engine,
   * and so is a claim (src/db/claims.ts): the counter is increased if it exists, otherwise inserted
   * with the count, and when another instance inserted it first, increased. One command per hit, as the
   * upsert was, except the window's first.
   */
  async #increment(id: string, by: number, expiresAt: Date): Promise<number> {
    const increase = () => this.collection.findOneAndUpdate({ _id: id }, { $inc: { count: by } }, { returnDocument: 'after' });
    const increased = await increase();
    if (increased) return increased.count;
    if (await claimOnce(this.collection, { _id: id, count: by, expires_at: expiresAt })) return by;
    // Another instance inserted the window's counter first: add to it.
    return (await increase())?.count ?? by;
  }

  async sweep(now = new Date()): Promise<number> {
    return await sweepEnded(this.collection, now);
  }
}
