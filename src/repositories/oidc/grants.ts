import type { Collection, Db } from 'mongodb';
import { sha256Hex } from '../../lib/hash.ts';
import { CONSUMED_REFRESH_TOKENS, GRANT_BOUND_MODELS, collectionName, type StoredArtifact } from './artifacts.ts';
import { deleteInBatches } from '../../db/deleteInBatches.ts';

/**
 * Revocation queries over the collections the adapter writes (./adapter.ts): `grant_id` is in clear on
 * the token models and on grants, and a grant's or session's `account_id` and `client_id` too, for
 * exactly these queries. The consents collection is the primary index of grants per user and client;
 * these catch the rest.
 */
export class OidcArtifactRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async ensureIndexes(): Promise<void> {
    // Created with the adapter's collections, by ensureOidcIndexes (./maintenance.ts).
  }

  #collection(model: string): Collection<StoredArtifact> {
    return this.#db.collection<StoredArtifact>(collectionName(model));
  }

  async #grantIds(filter: { account_id: string } | { client_id: string }): Promise<string[]> {
    const docs = await this.#collection('Grant').find(filter, { projection: { grant_id: 1 } }).toArray();
    return docs.flatMap((d) => (typeof d.grant_id === 'string' ? [d.grant_id] : []));
  }

  async grantIdsForAccount(userId: string): Promise<string[]> {
    return await this.#grantIds({ account_id: String(userId) });
  }

  async grantIdsForClient(clientId: string): Promise<string[]> {
    return await this.#grantIds({ client_id: String(clientId) });
  }

  /** Deletes the grant and every token, code and request issued from it. */
  async deleteGrant(grantId: string): Promise<number> {
    const id = String(grantId);
    let removed = (await this.#collection('Grant').deleteOne({ _id: sha256Hex(id) })).deletedCount;
    for (const model of GRANT_BOUND_MODELS) removed += await deleteInBatches(this.#collection(model), { grant_id: id });
    // Used refresh tokens of the grant (kept for reuse detection).
    removed += await deleteInBatches(this.#db.collection<StoredArtifact>(CONSUMED_REFRESH_TOKENS), { grant_id: id });
    return removed;
  }

  /** Signs the user out of the authorization server everywhere. */
  async deleteSessionsForAccount(userId: string): Promise<number> {
    return await deleteInBatches(this.#collection('Session'), { account_id: String(userId) });
  }
}
