import type { Db } from 'mongodb';
import { GenerationLeases, type Generation, type GenerationDoc } from '../db/claims.ts';

/**
 * Leases that serialise one kind of change across instances, where a single conditional update cannot:
 * generation leases (src/db/claims.ts), one name per thing changed (LockService).
 */
export type LockDoc = GenerationDoc;
export type Lease = Generation;

/** Ended generations are kept a day before the sweep removes them. */
const KEEP_MS = 24 * 3600 * 1000;

export class LockRepository extends GenerationLeases {
  constructor(db: Db) {
    super(db.collection<LockDoc>('locks'), KEEP_MS);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ name: 1, generation: -1 }, { name: 'name_generation' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }
}
