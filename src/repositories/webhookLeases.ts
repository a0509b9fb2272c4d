import type { Db } from 'mongodb';
import { Leases, type EndingClaim } from '../db/claims.ts';

/**
 * Who makes a delivery attempt: the instance that claims the lease `${deliveryId}#${seq}` first. The
 * same kind of lease bounds the attempts in flight to one endpoint: `${webhookId}#slot${n}`, one per
 * attempt allowed at once (see WebhookDispatcher). Leases with an end (src/db/claims.ts).
 */
export type WebhookLeaseDoc = EndingClaim;

/** Leases left by instances that died are swept a day after they ended. */
const KEEP_MS = 24 * 3600 * 1000;

export class WebhookLeaseRepository extends Leases {
  constructor(db: Db) {
    super(db.collection<WebhookLeaseDoc>('webhook_leases'), KEEP_MS);
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }
}
