import type { Collection, Db } from 'mongodb';
import { collectionName } from '../oauth/adapter.ts';

/**
 * Revocation queries over the collections the oidc-provider adapter writes (`oidc_<model>`). The
 * adapter owns their shape and indexes: payloads are JSON text, with `grant_id` lifted out and indexed
 * on the token models. Finding a user's or client's grants by payload means a scan with a regular
 * expression, each hit confirmed by parsing; that is kept to Grant and Session, which are few (one
 * grant per user and client; sessions expire), and only on rare admin actions. The consents
 * collection is the primary index of grants per user and client; this scan catches the rest.
 */
interface StoredArtifact {
  _id: string;
  payload: string;
  grant_id?: string;
}

const GRANT_BOUND_MODELS = ['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest'] as const;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class OidcArtifactRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async ensureIndexes(): Promise<void> {
    // Created by ensureOidcIndexes (src/oauth/adapter.ts).
  }

  #collection(model: string): Collection<StoredArtifact> {
    return this.#db.collection<StoredArtifact>(collectionName(model));
  }

  /** Ids of `model` documents whose payload has `field` equal to `value`. */
  async #idsByPayload(model: string, field: 'accountId' | 'clientId', value: string): Promise<string[]> {
    const needle = JSON.stringify({ [field]: String(value) }).slice(1, -1);
    const docs = await this.#collection(model)
      .find({ payload: { $regex: escapeRegExp(needle) } }, { projection: { payload: 1 } })
      .toArray();
    return docs
      .filter((d) => {
        try {
          return (JSON.parse(d.payload) as Record<string, unknown>)[field] === value;
        } catch {
          return false;
        }
      })
      .map((d) => d._id);
  }

  async grantIdsForAccount(userId: string): Promise<string[]> {
    return await this.#idsByPayload('Grant', 'accountId', userId);
  }

  async grantIdsForClient(clientId: string): Promise<string[]> {
    return await this.#idsByPayload('Grant', 'clientId', clientId);
  }

  /** Deletes the grant and every token, code and request issued from it. */
  async deleteGrant(grantId: string): Promise<number> {
    const id = String(grantId);
    let removed = (await this.#collection('Grant').deleteOne({ _id: id })).deletedCount;
    for (const model of GRANT_BOUND_MODELS) removed += (await this.#collection(model).deleteMany({ grant_id: id })).deletedCount;
    return removed;
  }

  /** Signs the user out of the authorization server everywhere. */
  async deleteSessionsForAccount(userId: string): Promise<number> {
    const ids = await this.#idsByPayload('Session', 'accountId', userId);
    if (ids.length === 0) return 0;
    return (await this.#collection('Session').deleteMany({ _id: { $in: ids } })).deletedCount;
  }
}
