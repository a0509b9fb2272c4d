import { MongoServerError, type Collection, type Db } from 'mongodb';

export interface StoredResponse {
  status: number;
  /** The JSON body as text: stored documents never carry client-chosen field names. */
  body: string;
  location: string | null;
}

export interface IdempotencyDoc {
  /** SHA-256 of the credential's scope and the client's key. */
  _id: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  fingerprint: string;
  state: 'pending' | 'done';
  response: StoredResponse | null;
  created_at: Date;
  expires_at: Date;
}

/** How long a key is remembered (PRODUCT §6). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A reservation whose request never finished (the instance died) may be taken over after this. */
export const ABANDONED_AFTER_MS = 60_000;

export class IdempotencyKeyRepository {
  readonly collection: Collection<IdempotencyDoc>;
  constructor(db: Db) {
    this.collection = db.collection<IdempotencyDoc>('idempotency_keys');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /**
   * Claims the key by inserting it (the unique `_id` makes exactly one concurrent caller win). Returns
   * null when claimed, else the live document that holds it. Expired or abandoned ones are removed first.
   */
  async reserve(id: string, fingerprint: string, now = new Date()): Promise<IdempotencyDoc | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.collection.insertOne({
          _id: id,
          fingerprint,
          state: 'pending',
          response: null,
          created_at: now,
          expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
        });
        return null;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      }
      const existing = await this.find(id, now);
      if (existing) return existing;
      await this.collection.deleteOne({
        _id: id,
        $or: [{ expires_at: { $lte: now } }, { state: 'pending', created_at: { $lte: new Date(now.getTime() - ABANDONED_AFTER_MS) } }],
      });
    }
    throw new Error('could not reserve the idempotency key');
  }

  /** The key's document unless it has expired or was abandoned mid-request. */
  async find(id: string, now = new Date()): Promise<IdempotencyDoc | null> {
    const doc = await this.collection.findOne({ _id: id });
    if (!doc || doc.expires_at <= now) return null;
    if (doc.state === 'pending' && doc.created_at.getTime() <= now.getTime() - ABANDONED_AFTER_MS) return null;
    return doc;
  }

  async complete(id: string, response: StoredResponse): Promise<void> {
    await this.collection.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'done', response } });
  }

  /** Forgets a reservation whose request failed, so a retry runs it again. */
  async release(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: id, state: 'pending' });
  }

  async sweep(now = new Date()): Promise<number> {
    const { deletedCount } = await this.collection.deleteMany({ expires_at: { $lte: now } });
    return deletedCount;
  }
}
