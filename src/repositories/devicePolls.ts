import type { Db } from 'mongodb';
import { Leases, type EndingClaim } from '../db/claims.ts';

/**
 * The polls of a device code at the token endpoint (RFC 8628 §3.5): a poll answered "still pending"
 * holds the lease `poll:<SHA-256 of the device code>` for the polling interval; a poll that finds it
 * held came too soon and is told `slow_down`. Leases with an end (src/db/claims.ts), so of polls at the
 * same moment on any instances exactly one holds it.
 */
export type DevicePollDoc = EndingClaim;

/** Ended leases are swept an hour after they ended (a device code lives ten minutes). */
const KEEP_MS = 3600 * 1000;

export class DevicePollRepository extends Leases {
  constructor(db: Db) {
    super(db.collection<DevicePollDoc>('device_polls'), KEEP_MS);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }
}
