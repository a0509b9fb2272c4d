import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';

/**
 * The data keys (keys/data-keys.json) that may have sealed something in this database: every id the
 * key material held when an instance or the CLI opened the database. It lets a start notice, without
 * reading the sealed collections, that keys/ lost a key the data still needs (src/keys/keyCheck.ts).
 */
export interface DataKeyRecord {
  /** The data key id (`dk_…`). */
  _id: string;
  first_seen_at: Date;
  /** Set when an operator accepted that the key is gone for good (ACCEPT_LOST_DATA_KEYS). */
  accepted_lost_at: Date | null;
}

export class DataKeyRegistryRepository {
  readonly collection: Collection<DataKeyRecord>;
  constructor(db: Db) {
    this.collection = db.collection<DataKeyRecord>('data_key_registry');
  }

  async ensureIndexes(): Promise<void> {
    // Only the `_id` index: the collection holds a handful of rows and is read whole.
  }

  async list(): Promise<DataKeyRecord[]> {
    return await this.collection.find({}).toArray();
  }

  /**
   * Records each id once: a claim each (src/db/claims.ts), so ids recorded before (by any instance) are
   * left as they are. One write per id: the key material holds a handful.
   */
  async record(ids: string[], now = new Date()): Promise<void> {
    for (const id of ids) await claimOnce(this.collection, { _id: String(id), first_seen_at: now, accepted_lost_at: null });
  }

  async acceptLost(ids: string[], now = new Date()): Promise<void> {
    for (const id of ids) await this.collection.updateOne({ _id: String(id) }, { $set: { accepted_lost_at: now } });
  }

  /** A key that no stored value uses any more (re-encrypted, or its values deleted) stops being required. */
  async forget(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(id) });
  }
}
