import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/** What an account's counted resources are. */
export const QUOTA_KINDS = ['projects', 'oauth_clients', 'api_keys', 'webhooks', 'users'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

/**
 * One counted resource of an account: `_id` is `<kind>:<resource id>`, and `n` its slot number, unique
 * per account and kind (unique index). A create takes a free number below its quota by inserting the
 * slot before the resource, so of concurrent creates only as many as there are free numbers succeed:
 * each slot is a claim (src/db/claims.ts), where a count-then-insert would let them all through.
 * Resources counted without a limit (the operator's, or made before quotas existed) take a negative
 * number, which shrinks the range of free ones by as much.
 */
export interface QuotaSlotDoc {
  _id: string;
  account_id: string;
  kind: QuotaKind | 'backfill';
  n: number;
  created_at: Date;
}

export const slotId = (kind: QuotaKind, resourceId: string) => `${kind}:${resourceId}`;

/** A negative slot number for an unlimited slot, practically unique (a clash is retried). */
const unlimitedNumber = () => -(Date.now() * 1000 + Math.floor(Math.random() * 1000));

export class QuotaSlotRepository {
  readonly collection: Collection<QuotaSlotDoc>;
  constructor(db: Db) {
    this.collection = db.collection<QuotaSlotDoc>('quota_slots');
  }

  async ensureIndexes(): Promise<void> {
    // Never null or missing: both inserts below set all three (the backfill marker's account_id is ''); n, a JS number stored as int32 or double, is equal across the two to FerretDB and MongoDB alike.
    await this.collection.createIndex({ account_id: 1, kind: 1, n: 1 }, { unique: true, name: 'account_kind_n' });
  }

  /** The slots an account holds of a kind (ids and numbers only; at most its quota plus the unlimited ones). */
  async list(accountId: string, kind: QuotaKind): Promise<{ _id: string; n: number }[]> {
    return await this.collection.find({ account_id: String(accountId), kind }, { projection: { n: 1 } }).toArray();
  }

  async count(accountId: string, kind: QuotaKind): Promise<number> {
    return await this.collection.countDocuments({ account_id: String(accountId), kind });
  }

  async exists(kind: QuotaKind, resourceId: string): Promise<boolean> {
    return (await this.collection.countDocuments({ _id: slotId(kind, resourceId) }, { limit: 1 })) > 0;
  }

  /** Inserts slot `n` for a resource: 'taken' when the number (or the resource's slot) exists already. */
  async tryInsert(accountId: string, kind: QuotaKind, resourceId: string, n: number): Promise<'inserted' | 'taken'> {
    const slot = { _id: slotId(kind, resourceId), account_id: accountId, kind, n, created_at: new Date() };
    return (await claimOnce(this.collection, slot)) ? 'inserted' : 'taken';
  }

  /** A slot outside the quota's range (operator's resources, backfill); nothing if the resource has one. */
  async insertUnlimited(accountId: string, kind: QuotaKind, resourceId: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      if ((await this.tryInsert(accountId, kind, resourceId, unlimitedNumber())) === 'inserted') return;
      if (await this.exists(kind, resourceId)) return;
    }
  }

  async release(kind: QuotaKind, resourceId: string): Promise<void> {
    await this.collection.deleteOne({ _id: slotId(kind, resourceId) });
  }

  async deleteForAccount(accountId: string): Promise<number> {
    return await deleteInBatches(this.collection, { account_id: String(accountId) });
  }

  /**
   * Gives every resource made before quotas existed an unlimited slot, once per kind (a marker records
   * it). `resources` lists them (id and account) from their own collection.
   */
  async backfill(kind: QuotaKind, resources: AsyncIterable<{ _id: string; account_id: string }>): Promise<number> {
    const marker = `backfill:${kind}`;
    if ((await this.collection.countDocuments({ _id: marker }, { limit: 1 })) > 0) return 0;
    let added = 0;
    for await (const resource of resources) {
      if (await this.exists(kind, resource._id)) continue;
      await this.insertUnlimited(resource.account_id, kind, resource._id);
      added++;
    }
    // Marked already by another instance starting at the same time: the same marker either way.
    await claimOnce(this.collection, { _id: marker, account_id: '', kind: 'backfill', n: QUOTA_KINDS.indexOf(kind), created_at: new Date() });
    return added;
  }
}
