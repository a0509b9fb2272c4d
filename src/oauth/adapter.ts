import type { Collection, Db } from 'mongodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuthClientDoc, OAuthClientRepository } from '../repositories/oauthClients.ts';

/**
 * Storage for oidc-provider's models in MongoDB. Payloads are kept as JSON text: they carry keys such as
 * resource URLs (`{"http://host/v1": "read"}`) that contain dots, which FerretDB refuses and MongoDB
 * discourages. Expiry is by query (`expires_at`) plus a periodic sweep, not a TTL index.
 */
interface StoredArtifact {
  _id: string;
  payload: string;
  grant_id?: string;
  uid?: string;
  user_code?: string;
  expires_at: Date | null;
  consumed_at?: Date;
}

export const OIDC_MODELS = [
  'Session',
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'Interaction',
  'ReplayDetection',
  'PushedAuthorizationRequest',
  'Grant',
  'BackchannelAuthenticationRequest',
] as const;

export function collectionName(model: string): string {
  return `oidc_${model.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c.toLowerCase())}`;
}

export async function ensureOidcIndexes(db: Db): Promise<void> {
  for (const model of OIDC_MODELS) {
    const col = db.collection(collectionName(model));
    await col.createIndex({ expires_at: 1 }, { name: 'expires_at' });
    if (['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest'].includes(model))
      await col.createIndex({ grant_id: 1 }, { name: 'grant_id' });
    if (model === 'Session') await col.createIndex({ uid: 1 }, { name: 'uid' });
    if (model === 'DeviceCode') await col.createIndex({ user_code: 1 }, { name: 'user_code' });
  }
}

export async function sweepOidc(db: Db, now = new Date()): Promise<number> {
  let removed = 0;
  for (const model of OIDC_MODELS) {
    const { deletedCount } = await db.collection(collectionName(model)).deleteMany({ expires_at: { $lte: now } });
    removed += deletedCount;
  }
  return removed;
}

export interface AdapterHooks {
  /** Called when a grant is destroyed (revoked, or reuse detected), so access JWTs can be refused. */
  onGrantRevoked?(grantId: string): Promise<void>;
}

/**
 * Scopes every client may ask for on top of its registered API scopes. oidc-provider checks each
 * requested scope it knows against the client's `scope`, so without these a client could never ask
 * for an ID token or say it wants to work offline.
 */
const PROTOCOL_SCOPES = ['openid', 'offline_access'];

/** Maps a stored client to the metadata oidc-provider validates and serves. */
export function clientMetadata(doc: OAuthClientDoc): AdapterPayload {
  const nativeRedirect = doc.redirect_uris.some((u) => !/^https:/.test(u));
  return {
    client_id: doc._id,
    client_name: doc.client_name,
    redirect_uris: doc.redirect_uris,
    grant_types: doc.grant_types,
    response_types: doc.grant_types.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: doc.token_endpoint_auth_method,
    application_type: nativeRedirect ? 'native' : 'web',
    scope: [...new Set([...PROTOCOL_SCOPES, ...doc.scope.split(' ')])].join(' '),
    ...(doc.client_secret_hash ? { client_secret: doc.client_secret_hash } : {}),
    first_party: doc.first_party,
    account_id: doc.account_id,
  } as AdapterPayload;
}

export function createAdapterClass(db: Db, clients: OAuthClientRepository, hooks: AdapterHooks = {}) {
  return class MongoAdapter implements Adapter {
    readonly model: string;
    readonly collection: Collection<StoredArtifact>;

    constructor(model: string) {
      this.model = model;
      this.collection = db.collection<StoredArtifact>(collectionName(model));
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client') throw new Error('clients are registered through Slipway, not the provider');
      const doc: Omit<StoredArtifact, '_id'> = {
        payload: JSON.stringify(payload),
        expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      if (payload.grantId) doc.grant_id = payload.grantId;
      if (payload.uid) doc.uid = payload.uid;
      if (payload.userCode) doc.user_code = payload.userCode;
      await this.collection.replaceOne({ _id: id }, doc, { upsert: true });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (typeof id !== 'string') return undefined;
      if (this.model === 'Client') {
        const client = await clients.findById(id);
        return client ? clientMetadata(client) : undefined;
      }
      return this.#load(await this.collection.findOne({ _id: id }));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (typeof uid !== 'string') return undefined;
      return this.#load(await this.collection.findOne({ uid }));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (typeof userCode !== 'string') return undefined;
      return this.#load(await this.collection.findOne({ user_code: userCode }));
    }

    async consume(id: string): Promise<void> {
      await this.collection.updateOne({ _id: id }, { $set: { consumed_at: new Date() } });
    }

    async destroy(id: string): Promise<void> {
      await this.collection.deleteOne({ _id: id });
      if (this.model === 'Grant') await hooks.onGrantRevoked?.(id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.collection.deleteMany({ grant_id: grantId });
    }

    #load(doc: StoredArtifact | null): AdapterPayload | undefined {
      if (!doc) return undefined;
      if (doc.expires_at && doc.expires_at.getTime() <= Date.now()) return undefined;
      const payload = JSON.parse(doc.payload) as AdapterPayload;
      if (doc.consumed_at) payload.consumed = Math.floor(doc.consumed_at.getTime() / 1000);
      return payload;
    }
  };
}
