import type { Collection, Db } from 'mongodb';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/** Remembers, per user and client, the grant a user consented to, so consent survives new sessions. */
export interface ConsentDoc {
  _id: string;
  user_id: string;
  client_id: string;
  grant_id: string;
  updated_at: Date;
}

export class ConsentRepository {
  readonly collection: Collection<ConsentDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ConsentDoc>('consents');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ user_id: 1 }, { name: 'user_consents' });
    await this.collection.createIndex({ client_id: 1 }, { name: 'client_consents' });
  }

  async remember(userId: string, clientId: string, grantId: string): Promise<void> {
    await this.collection.updateOne(
      { _id: `${userId}:${clientId}` },
      { $set: { user_id: userId, client_id: clientId, grant_id: grantId, updated_at: new Date() } },
      { upsert: true },
    );
  }

  async grantIdFor(userId: string, clientId: string): Promise<string | undefined> {
    const doc = await this.collection.findOne({ _id: `${userId}:${clientId}` });
    return doc?.grant_id;
  }

  async grantIdsForUser(userId: string): Promise<string[]> {
    const docs = await this.collection.find({ user_id: String(userId) }, { projection: { grant_id: 1 } }).toArray();
    return docs.map((d) => d.grant_id);
  }

  async grantIdsForClient(clientId: string): Promise<string[]> {
    const docs = await this.collection.find({ client_id: String(clientId) }, { projection: { grant_id: 1 } }).toArray();
    return docs.map((d) => d.grant_id);
  }

  async deleteForUser(userId: string): Promise<number> {
    return await deleteInBatches(this.collection, { user_id: String(userId) });
  }

  async deleteForClient(clientId: string): Promise<number> {
    return await deleteInBatches(this.collection, { client_id: String(clientId) });
  }
}
