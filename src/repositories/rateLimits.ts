import { MongoServerError, type Collection, type Db } from 'mongodb';

interface CounterDoc {
  _id: string;
  count: number;
  expires_at: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Fixed-window counters kept in MongoDB, so every instance shares them. Windows are keyed by their
 * start; old ones are removed by the sweeper (no TTL index, which FerretDB lacks).
 */
export class RateLimitRepository {
  readonly collection: Collection<CounterDoc>;
  constructor(db: Db) {
    this.collection = db.collection<CounterDoc>('rate_limits');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  async hit(key: string, limit: number, windowSeconds: number, now = Date.now()): Promise<RateLimitResult> {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const id = `${key}:${start}`;
    const update = { $inc: { count: 1 }, $setOnInsert: { expires_at: new Date(start + windowMs) } };
    let doc: CounterDoc | null;
    try {
      doc = await this.collection.findOneAndUpdate({ _id: id }, update, { upsert: true, returnDocument: 'after' });
    } catch (err) {
      // Two instances inserting the same new window at once: the loser retries as an update.
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      doc = await this.collection.findOneAndUpdate({ _id: id }, update, { upsert: true, returnDocument: 'after' });
    }
    const count = doc?.count ?? 1;
    return {
      allowed: count <= limit,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
    };
  }

  async sweep(now = new Date()): Promise<number> {
    const { deletedCount } = await this.collection.deleteMany({ expires_at: { $lte: now } });
    return deletedCount;
  }
}
