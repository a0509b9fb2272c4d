import type { Collection, Db } from 'mongodb';
import { claimOnce, sweepEnded } from '../db/claims.ts';
import type { Changes } from '../lib/changes.ts';

/**
 * What was revoked while JWT access tokens that name it may still be unexpired: grants (by grant id, as
 * always), and, prefixed, single access tokens (`jti:`), removed users (`user:`) and deleted clients
 * (`client:`). Kept for two access-token lifetimes, then swept. Each instance holds the list in memory
 * (RevokedGrantCache): a revocation written through this repository is also announced on the
 * process's change emitter at once, before the write, so the very next request here is refused;
 * other instances read it within `REVOCATION_REFRESH_SECONDS`.
 */
interface RevokedGrantDoc {
  _id: string;
  revoked_at: Date;
  expires_at: Date;
}

const KEEP_SECONDS = 2 * 3600;

export const revokedTokenKey = (jti: string) => `jti:${jti}`;
export const revokedUserKey = (userId: string) => `user:${userId}`;
export const revokedClientKey = (clientId: string) => `client:${clientId}`;
/** Every CI token exchanged through a trust policy (docs/product.md §13) ends when the policy is deleted. */
export const revokedTrustPolicyKey = (policyId: string) => `trust_policy:${policyId}`;

export class RevokedGrantRepository {
  readonly collection: Collection<RevokedGrantDoc>;
  readonly #changes: Changes;
  constructor(db: Db, changes: Changes) {
    this.collection = db.collection<RevokedGrantDoc>('revoked_grants');
    this.#changes = changes;
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ revoked_at: 1 }, { name: 'revoked_at' });
    await this.collection.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  }

  /**
   * A grant id, or a key made by revokedTokenKey / revokedUserKey / revokedClientKey. Announced on the
   * process's change emitter first (RevokedGrantCache listens), then written.
   */
  async add(key: string, at = new Date()): Promise<void> {
    this.#changes.emit('revoked', key, at);
    // The first revocation is kept. Concurrent revocations of one grant (parallel reuse of one code or
    // refresh token) race here: one claims the key, and the others are done.
    await claimOnce(this.collection, { _id: key, revoked_at: at, expires_at: new Date(at.getTime() + KEEP_SECONDS * 1000) });
  }

  /** Calls `listener` with each key revoked in this process, at once (before it is written), for what holds grants in memory. */
  onRevoked(listener: (key: string) => void): void {
    this.#changes.on('revoked', listener);
  }

  /** Whether any of the keys is listed: one lookup by `_id` each (for the introspection endpoint). */
  async anyListed(keys: string[]): Promise<boolean> {
    for (const key of keys) if (await this.collection.findOne({ _id: key }, { projection: { _id: 1 } })) return true;
    return false;
  }

  /** Ids (grant ids and prefixed keys) revoked at or after `since`. */
  async revokedSince(since: Date): Promise<{ id: string; revoked_at: Date }[]> {
    const docs = await this.collection.find({ revoked_at: { $gte: since } }).project<RevokedGrantDoc>({ revoked_at: 1 }).toArray();
    return docs.map((d) => ({ id: d._id, revoked_at: d.revoked_at }));
  }

  async sweep(now = new Date()): Promise<number> {
    return await sweepEnded(this.collection, now);
  }
}
