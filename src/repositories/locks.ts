import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';

/**
 * Leases that serialise one kind of change across instances, where a single conditional update cannot.
 *
 * Built only on inserting a unique `_id`, the one write FerretDB 1.24 (SQLite) performs atomically:
 * there, a conditional update is a read-modify-write of the whole document, so concurrent
 * compare-and-set updates can all "match", `$inc`s get lost and `findOneAndDelete` hands one document
 * to several callers. A lease is generation N of a name (`name#N`); taking it means inserting N+1
 * after seeing N released or expired, and of racers inserting the same N+1 exactly one wins. Only the
 * holder ever updates its own generation (to release it), so no update races another.
 */
export interface LockDoc {
  /** `${name}#${generation}` */
  _id: string;
  name: string;
  generation: number;
  token: string;
  expires_at: Date;
  released_at: Date | null;
}

export interface Lease {
  name: string;
  generation: number;
  token: string;
}

const KEEP_MS = 24 * 3600 * 1000;

export class LockRepository {
  readonly collection: Collection<LockDoc>;
  constructor(db: Db) {
    this.collection = db.collection<LockDoc>('locks');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ name: 1, generation: -1 }, { name: 'name_generation' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /** The lease, or null while someone else holds an unexpired one. A lease never released ends at `ttlMs`. */
  async tryAcquire(name: string, ttlMs: number, now = new Date()): Promise<Lease | null> {
    const latest = await this.collection.findOne({ name: String(name) }, { sort: { generation: -1 } });
    if (latest && latest.released_at === null && latest.expires_at > now) return null;
    const generation = (latest?.generation ?? 0) + 1;
    const token = randomBytes(16).toString('base64url');
    try {
      await this.collection.insertOne({
        _id: `${name}#${generation}`,
        name,
        generation,
        token,
        expires_at: new Date(now.getTime() + ttlMs),
        released_at: null,
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) return null;
      throw err;
    }
    return { name, generation, token };
  }

  async release(lease: Lease, now = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: `${lease.name}#${lease.generation}`, token: lease.token }, { $set: { released_at: now } });
  }

  /**
   * Removes generations that ended a day ago and have a newer generation: the newest of a name is
   * kept, so the next acquirer always continues its numbering.
   */
  async sweep(now = new Date()): Promise<number> {
    const old = await this.collection
      .find({ expires_at: { $lte: new Date(now.getTime() - KEEP_MS) } }, { projection: { name: 1, generation: 1 } })
      .limit(1000)
      .toArray();
    let removed = 0;
    for (const doc of old) {
      if (!(await this.collection.findOne({ name: doc.name, generation: { $gt: doc.generation } }, { projection: { _id: 1 } }))) continue;
      removed += (await this.collection.deleteOne({ _id: doc._id })).deletedCount;
    }
    return removed;
  }
}
