import type { Collection, Db } from 'mongodb';
import { writeUnique } from '../db/claims.ts';
import { RecordCache } from '../lib/recordCache.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

export type ClientAuthMethod = 'none' | 'client_secret_basic';
export type ClientGrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';
/** What a stored client may have: the device grant (RFC 8628) too, the first-party CLI's (services/cliClient.ts), which /v1 does not register. */
export type StoredGrantType = ClientGrantType | 'urn:ietf:params:oauth:grant-type:device_code';

export interface OAuthClientDoc {
  /** The client_id. */
  _id: string;
  account_id: string;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
  grant_types: StoredGrantType[];
  /** Space-separated scopes the client may request. */
  scope: string;
  first_party: boolean;
  /** RFC 9449 §5.2: every token request must carry a DPoP proof (tokens bound to the client's key). Absent on older clients: false. */
  dpop_bound_access_tokens?: boolean;
  /** RFC 9126 §6: authorization requests only by reference to a pushed request (`request_uri`). Absent on older clients: false. */
  require_pushed_authorization_requests?: boolean;
  /** SHA-256 (hex) of the client secret; null for public clients. */
  client_secret_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export class OAuthClientRepository {
  readonly collection: Collection<OAuthClientDoc>;
  readonly #cache: RecordCache<OAuthClientDoc>;
  /** `cacheMs`: how long `findByIdCached` may trust a client read earlier (0: never). */
  constructor(db: Db, options: { cacheMs?: number; now?: () => number } = {}) {
    this.collection = db.collection<OAuthClientDoc>('oauth_clients');
    this.#cache = new RecordCache((id) => this.findById(id), { ttlMs: options.cacheMs ?? 0, ...(options.now ? { now: options.now } : {}) });
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ account_id: 1, _id: 1 }, { name: 'account_clients' });
    await this.collection.createIndex({ account_id: 1, created_at: 1, _id: 1 }, { name: 'account_clients_by_age' });
    // firstPartyNames, asked at every registration: first-party apps are few among many.
    await this.collection.createIndex({ first_party: 1 }, { name: 'first_party' });
  }

  async insert(doc: OAuthClientDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /**
   * Writes a client the operator's own code defines (its fields set whole, `created_at` kept from the
   * first write): the same record after any number of calls, on any number of instances at once.
   */
  async upsertDefined(doc: Omit<OAuthClientDoc, 'created_at' | 'updated_at'>, at: Date): Promise<void> {
    const { _id, ...fields } = doc;
    const write = () => this.collection.updateOne({ _id }, { $set: { ...fields, updated_at: at }, $setOnInsert: { created_at: at } }, { upsert: true });
    try {
      // Two upserts of a new id at once: one inserts, the other fails on the unique _id; it now updates.
      await writeUnique(write, write);
    } finally {
      this.#cache.forget(_id);
    }
  }

  async findById(id: string): Promise<OAuthClientDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  /**
   * For the token endpoint: the client from memory when read in the last `cacheMs`. A secret rotated or a
   * client deleted through this repository applies here at once, elsewhere within `cacheMs`.
   */
  async findByIdCached(id: string): Promise<OAuthClientDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.#cache.get(id);
  }

  async findInAccount(accountId: string, id: string): Promise<OAuthClientDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId) });
  }

  /**
   * Every registered redirect URI (the CORS origin allow-list is built from them). A full read: it runs
   * every few seconds at most, never per request.
   */
  async allRedirectUris(): Promise<string[]> {
    const docs = await this.collection.find({}, { projection: { _id: 0, redirect_uris: 1 } }).toArray();
    return docs.flatMap((d) => d.redirect_uris ?? []);
  }

  /** Oldest first. */
  /** The names of the first-party clients (the operator's own apps). */
  async firstPartyNames(): Promise<string[]> {
    return (await this.collection.find({ first_party: true }, { projection: { client_name: 1 } }).toArray()).map((c) => c.client_name);
  }

  async page(accountId: string, page: PageRequest): Promise<PageResult<OAuthClientDoc>> {
    return await findPage(this.collection, { account_id: String(accountId) }, { created_at: 1, _id: 1 }, page);
  }

  /** Confidential clients only; null when missing, in another account, or public. */
  async replaceSecretHash(accountId: string, id: string, hash: string, at: Date): Promise<OAuthClientDoc | null> {
    try {
      return await this.collection.findOneAndUpdate(
        { _id: String(id), account_id: String(accountId), token_endpoint_auth_method: 'client_secret_basic' },
        { $set: { client_secret_hash: hash, updated_at: at } },
        { returnDocument: 'after' },
      );
    } finally {
      this.#cache.forget(String(id));
    }
  }

  async delete(accountId: string, id: string): Promise<OAuthClientDoc | null> {
    if (typeof id !== 'string') return null;
    try {
      return await this.collection.findOneAndDelete({ _id: id, account_id: String(accountId) });
    } finally {
      this.#cache.forget(id);
    }
  }
}
