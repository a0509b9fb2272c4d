import type { Db } from 'mongodb';
import { Leases, type EndingClaim } from '../db/claims.ts';

/**
 * What happens once, or once in a while, to a device code (RFC 8628; docs/product.md §12), as leases
 * with an end (src/db/claims.ts), keyed by the SHA-256 of the device code or of its id, so of requests
 * at the same moment on any instances exactly one holds each:
 * - `poll:<hash>`: a poll at the token endpoint answered "still pending" holds it for the polling
 *   interval; a poll that finds it held came too soon and is told `slow_down`;
 * - `answer:<hash>`: the one answer (Allow or Deny) given to the code on the verification page, for as
 *   long as the code lives.
 */
export type DeviceCodeLeaseDoc = EndingClaim;

/** Ended leases are swept an hour after they ended (a device code lives ten minutes). */
const KEEP_MS = 3600 * 1000;

export class DeviceCodeLeaseRepository extends Leases {
  constructor(db: Db) {
    super(db.collection<DeviceCodeLeaseDoc>('device_code_leases'), KEEP_MS);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }
}
