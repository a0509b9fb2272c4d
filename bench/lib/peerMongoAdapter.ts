import type { Collection, Db } from 'mongodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/**
 * The fair peer's storage: oidc-provider's adapter over MongoDB in the shape of oidc-provider's own
 * example (example/adapters/mongodb.js), what a team would deploy instead of Slipway: one collection per
 * model, `find` a findOne by `_id`, `upsert` an update with upsert, `consume` a `$set` of `consumed`,
 * `destroy` a delete, `revokeByGrantId` a deleteMany by grant id; ids stored as they are, payloads
 * in clear. One change, forced by the database: FerretDB refuses keys with dots, which payloads carry
 * (resource URLs), so the payload is stored as JSON text, with `grantId`, `uid` and `userCode` beside it
 * for the lookups the example makes through `payload.*`.
 */
interface PeerDoc {
  _id: string;
  payload: string;
  grantId?: string;
  uid?: string;
  userCode?: string;
  expiresAt?: Date;
}

const collectionOf = (model: string) => `peer_${model.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c.toLowerCase())}`;

/** Its indexes, as the example creates them (expiry, and the secondary lookups). */
export async function ensurePeerIndexes(db: Db, models: string[]): Promise<void> {
  for (const model of models) {
    const col = db.collection<PeerDoc>(collectionOf(model));
    await col.createIndex({ expiresAt: 1 });
    await col.createIndex({ grantId: 1 });
    if (model === 'Session') await col.createIndex({ uid: 1 });
    if (model === 'DeviceCode') await col.createIndex({ userCode: 1 });
  }
}

export function peerAdapterClass(db: Db) {
  return class PeerMongoAdapter implements Adapter {
    readonly collection: Collection<PeerDoc>;
    constructor(model: string) {
      this.collection = db.collection<PeerDoc>(collectionOf(model));
    }

    async upsert(_id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const set: Omit<PeerDoc, '_id'> = { payload: JSON.stringify(payload) };
      if (typeof payload.grantId === 'string') set.grantId = payload.grantId;
      if (typeof payload.uid === 'string') set.uid = payload.uid;
      if (typeof payload.userCode === 'string') set.userCode = payload.userCode;
      if (expiresIn) set.expiresAt = new Date(Date.now() + expiresIn * 1000);
      await this.collection.updateOne({ _id }, { $set: set }, { upsert: true });
    }

    async find(_id: string): Promise<AdapterPayload | undefined> {
      return this.#payload(await this.collection.findOne({ _id }));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.#payload(await this.collection.findOne({ uid }));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.#payload(await this.collection.findOne({ userCode }));
    }

    async consume(_id: string): Promise<void> {
      // The example's findOneAndUpdate of `payload.consumed`; with the payload as text, the consumed time beside it.
      await this.collection.updateOne({ _id }, { $set: { consumed: Math.floor(Date.now() / 1000) } });
    }

    async destroy(_id: string): Promise<void> {
      await this.collection.deleteOne({ _id });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.collection.deleteMany({ grantId });
    }

    #payload(doc: (PeerDoc & { consumed?: number }) | null): AdapterPayload | undefined {
      if (!doc) return undefined;
      const payload = JSON.parse(doc.payload) as AdapterPayload;
      if (doc.consumed !== undefined) payload.consumed = doc.consumed;
      return payload;
    }
  };
}
