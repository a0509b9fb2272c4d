import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { deleteInBatches } from '../db/deleteInBatches.ts';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';
import { sha256Hex } from '../lib/hash.ts';
import type { OAuthClientDoc, OAuthClientRepository } from './oauthClients.ts';

/**
 * Storage for oidc-provider's models in MongoDB, with nothing recoverable at rest: every artifact (code,
 * refresh token, session, interaction, grant, ...) is stored under `_id` = SHA-256 of its id, and its
 * payload (which carries the id as `jti`, and other ids: a session's `uid`, an interaction's session
 * cookie and return URL) is sealed with AES-256-GCM under a key derived from the id itself (HKDF). So
 * whoever reads the database files learns neither the ids nor the payloads, and whoever presents an id
 * is the only one who can look the artifact up and open it. Secondary lookup keys that are credentials
 * (a session's `uid`, a device `userCode`) are stored hashed too, next to the id sealed under their own
 * key. What stays in clear is what revocation must query: `grant_id` (not a credential: it is also in
 * every access token), and a grant's or session's `account_id` and `client_id`.
 *
 * Payloads are JSON text (they carry resource URLs as keys, with dots, which FerretDB refuses). Expiry
 * is by query (`expires_at`) plus a periodic sweep, not a TTL index.
 *
 * Used refresh tokens are kept until they expire, so that presenting one again is detected as reuse
 * (and revokes its grant). They stay where they were, in `oidc_refresh_token`, marked `consumed_at`: the
 * embedded database answers a find by `_id` from its index (tools/ferretdb/patches), so a refresh costs
 * the same with 100,000 used tokens beside it as with none (bench/RESULTS.md, scaling table). Versions
 * before that moved used tokens to `oidc_refresh_token_consumed` shortly after use, because the stock
 * FerretDB read the whole collection for every find; that collection is still read when a token is not
 * among the live ones, and swept, until the last token moved there expires (30 days).
 *
 * Single use (codes, refresh tokens, pushed requests): consume() claims the artifact by inserting
 * `${model}:${hashed id}` into `oidc_claims`. An insert of a unique `_id` is atomic on FerretDB 1.24 as
 * on MongoDB, so of any number of concurrent consumers on any number of instances exactly one wins; the
 * others get AlreadyConsumed. An update after a read (how consume() worked before) is not: FerretDB
 * applies it as read-modify-write, and every concurrent request that had read the artifact unused went
 * on to issue tokens. Interactions are single use by their delete (see destroy()).
 */
interface StoredArtifact {
  _id: string;
  /** base64url(iv ‖ tag ‖ AES-256-GCM(JSON payload)), key = HKDF(id). */
  sealed: string;
  grant_id?: string;
  /** SHA-256 of the session uid; `uid_sealed` is the id sealed under the uid's key. */
  uid?: string;
  uid_sealed?: string;
  user_code?: string;
  user_code_sealed?: string;
  account_id?: string;
  client_id?: string;
  expires_at: Date | null;
  consumed_at?: Date;
}

/** Records written before ids were hashed: `_id` is the raw id and `payload` is clear JSON. */
interface LegacyArtifact {
  _id: string;
  payload: string;
  expires_at: Date | null;
  consumed_at?: Date;
}

const keyFor = (purpose: string, secret: string) => Buffer.from(hkdfSync('sha256', secret, '', `slipway oidc ${purpose}`, 32));

function seal(purpose: string, secret: string, aad: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(purpose, secret), iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function open(purpose: string, secret: string, aad: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose, secret), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The stored form of an artifact: `_id`, sealed payload and the clear fields revocation queries. */
export function storedArtifact(model: string, id: string, payload: AdapterPayload, expiresAt: Date | null): StoredArtifact {
  const _id = sha256Hex(id);
  const doc: StoredArtifact = { _id, sealed: seal('payload', id, `${model}:${_id}`, JSON.stringify(payload)), expires_at: expiresAt };
  if (model === 'Grant') doc.grant_id = id;
  else if (typeof payload.grantId === 'string') doc.grant_id = payload.grantId;
  if (typeof payload.uid === 'string') {
    doc.uid = sha256Hex(payload.uid);
    doc.uid_sealed = seal('uid', payload.uid, `${model}:${_id}`, id);
  }
  if (typeof payload.userCode === 'string') {
    doc.user_code = sha256Hex(payload.userCode);
    doc.user_code_sealed = seal('user_code', payload.userCode, `${model}:${_id}`, id);
  }
  if (model === 'Grant' || model === 'Session') {
    if (typeof payload.accountId === 'string') doc.account_id = payload.accountId;
    if (model === 'Grant' && typeof payload.clientId === 'string') doc.client_id = payload.clientId;
  }
  return doc;
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

/** Where single-use artifacts are claimed: `_id` = `${model}:${SHA-256 of the id}` (never the id itself). */
export const OIDC_CLAIMS = 'oidc_claims';

interface ClaimDoc {
  _id: string;
  claimed_at: Date;
  expires_at: Date;
}

/** How long a claim is kept when the model's lifetime is not given (AdapterHooks.ttlSeconds). */
const DEFAULT_CLAIM_TTL_SECONDS = 24 * 3600;

/**
 * A second use of a single-use artifact: thrown by consume() (and by destroy() of an interaction) to
 * every caller but the first, whichever instance it runs on. src/oauth/singleUse.ts turns it into the
 * OAuth error, after revoking what the artifact issued.
 */
export class AlreadyConsumed extends Error {
  readonly model: string;
  constructor(model: string) {
    super(`${model} already consumed`);
    this.name = 'AlreadyConsumed';
    this.model = model;
  }
}

/**
 * Where versions before the indexed embedded database moved used refresh tokens (stored form,
 * `consumed_at` set). Nothing is moved there any more: it is read on a miss and swept until it is empty.
 */
export const CONSUMED_REFRESH_TOKENS = `${collectionName('RefreshToken')}_consumed`;

export async function ensureOidcIndexes(db: Db): Promise<void> {
  for (const model of OIDC_MODELS) {
    const col = db.collection(collectionName(model));
    await col.createIndex({ expires_at: 1 }, { name: 'expires_at' });
    if (['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest'].includes(model))
      await col.createIndex({ grant_id: 1 }, { name: 'grant_id' });
    if (model === 'Session') await col.createIndex({ uid: 1 }, { name: 'uid' });
    if (model === 'Session' || model === 'Grant') await col.createIndex({ account_id: 1 }, { name: 'account_id' });
    if (model === 'Grant') await col.createIndex({ client_id: 1 }, { name: 'client_id' });
    if (model === 'DeviceCode') await col.createIndex({ user_code: 1 }, { name: 'user_code' });
  }
  const consumed = db.collection(CONSUMED_REFRESH_TOKENS);
  await consumed.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  await consumed.createIndex({ grant_id: 1 }, { name: 'grant_id' });
  await db.collection(OIDC_CLAIMS).createIndex({ expires_at: 1 }, { name: 'expires_at' });
}

export async function sweepOidc(db: Db, now = new Date()): Promise<number> {
  let removed = 0;
  for (const model of OIDC_MODELS) {
    removed += await deleteInBatches(db.collection<StoredArtifact>(collectionName(model)), { expires_at: { $lte: now } });
  }
  removed += await deleteInBatches(db.collection<StoredArtifact>(CONSUMED_REFRESH_TOKENS), { expires_at: { $lte: now } });
  removed += await deleteInBatches(db.collection<ClaimDoc>(OIDC_CLAIMS), { expires_at: { $lte: now } });
  return removed;
}

/**
 * Re-keys records stored before ids were hashed (raw `_id`, clear `payload`): each is written in the
 * stored form under the hash of its id, then the old one is deleted, so sessions, refresh tokens and
 * grants issued before the upgrade keep working. Idempotent; run by `slipway db migrate` and at start.
 */
export async function migrateOidcArtifacts(db: Db): Promise<number> {
  let migrated = 0;
  for (const model of OIDC_MODELS) {
    const col = db.collection<LegacyArtifact>(collectionName(model));
    for (const old of await col.find({ payload: { $exists: true } }).toArray()) {
      let payload: AdapterPayload;
      try {
        payload = JSON.parse(old.payload) as AdapterPayload;
      } catch {
        await col.deleteOne({ _id: old._id });
        continue;
      }
      const doc = storedArtifact(model, old._id, payload, old.expires_at);
      if (old.consumed_at) doc.consumed_at = old.consumed_at;
      try {
        await db.collection<StoredArtifact>(collectionName(model)).insertOne(doc);
      } catch (err) {
        // Another instance migrated it first.
        if (!isDuplicateKeyError(err)) throw err;
      }
      await col.deleteOne({ _id: old._id });
      migrated++;
    }
  }
  return migrated;
}

export interface AdapterHooks {
  /** Called when a grant is destroyed (revoked, or reuse detected), so access JWTs can be refused. */
  onGrantRevoked?(grantId: string): Promise<void>;
  /** Called when an access token (a JWT, never stored) is revoked through RFC 7009, with its `jti`. */
  onAccessTokenRevoked?(jti: string): Promise<void>;
  /**
   * The lifetime of each model's artifacts (the provider's `ttl`): a claim is kept as long as what it
   * claims can still be presented. Models not listed: a day.
   */
  ttlSeconds?: Partial<Record<string, number>>;
  /**
   * Reuse grace window (OAUTH_REFRESH_REUSE_GRACE_SECONDS): for this many seconds after a refresh token
   * was rotated, presenting it again is not reuse: it is refreshed once more (a new token of the same
   * grant) instead of revoking the grant. 0 (the default): every second use is reuse.
   */
  refreshReuseGraceSeconds?: number;
}

/**
 * Scopes every client may ask for on top of its registered API scopes: OpenID Connect sign-in (`openid`,
 * `profile`, `email`: an ID token and userinfo) and working offline.
 */
const PROTOCOL_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

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
    // RFC 9449 §5.2 and RFC 9126 §6; clients stored before these settings existed have neither.
    dpop_bound_access_tokens: doc.dpop_bound_access_tokens ?? false,
    require_pushed_authorization_requests: doc.require_pushed_authorization_requests ?? false,
  } as AdapterPayload;
}

export function createAdapterClass(db: Db, clients: OAuthClientRepository, hooks: AdapterHooks = {}) {
  const consumedRefreshTokens = db.collection<StoredArtifact>(CONSUMED_REFRESH_TOKENS);
  const claims = db.collection<ClaimDoc>(OIDC_CLAIMS);
  const graceMs = Math.max(0, hooks.refreshReuseGraceSeconds ?? 0) * 1000;
  /** Whether a refresh token used at `usedAt` is still inside the reuse grace window. */
  const inGrace = (model: string, usedAt: Date, now = Date.now()) => model === 'RefreshToken' && graceMs > 0 && now - usedAt.getTime() < graceMs;
  return class MongoAdapter implements Adapter {
    readonly model: string;
    readonly collection: Collection<StoredArtifact>;

    constructor(model: string) {
      this.model = model;
      this.collection = db.collection<StoredArtifact>(collectionName(model));
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client') throw new Error('clients are registered through Slipway, not the provider');
      const stored = storedArtifact(this.model, id, payload, expiresIn ? new Date(Date.now() + expiresIn * 1000) : null);
      const { _id, ...doc } = stored;
      // Most saves are of a new artifact (every token, code and rotated refresh token): an insert. FerretDB
      // 1.24 runs an upsert of an `_id` it does not have yet as a scan of the whole collection (measured:
      // 55 ms at 20,000 documents, against 0.5 ms for the insert), so the upsert is only the fallback for
      // an artifact saved again (a session, a grant, an interaction). A replacement by `_id` alone is
      // pushed down; if the artifact was deleted in between, the upsert puts it back as before.
      try {
        await this.collection.insertOne(stored);
        return;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
      try {
        await this.collection.replaceOne({ _id }, doc, { upsert: true });
      } catch (err) {
        // Saved concurrently by another request (parallel requests of one browser save its session): an
        // upsert that did not see the document inserted it too (FerretDB's upsert is a find, then an
        // insert), so replace what is there now.
        if (!isDuplicateKeyError(err)) throw err;
        await this.collection.replaceOne({ _id }, doc);
      }
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (typeof id !== 'string') return undefined;
      if (this.model === 'Client') {
        // From memory when read in the last PRINCIPAL_CACHE_SECONDS; a rotation or deletion made on this
        // instance applies at once (OAuthClientRepository.findByIdCached).
        const client = await clients.findByIdCached(id);
        return client ? clientMetadata(client) : undefined;
      }
      const _id = sha256Hex(id);
      const doc = await this.collection.findOne({ _id });
      // A used refresh token moved by an earlier version is looked for there only when it is not a live one.
      if (!doc && this.model === 'RefreshToken') return this.#load(id, await consumedRefreshTokens.findOne({ _id }));
      return this.#load(id, doc);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (typeof uid !== 'string') return undefined;
      const doc = await this.collection.findOne({ uid: sha256Hex(uid) });
      const id = doc?.uid_sealed ? open('uid', uid, `${this.model}:${doc._id}`, doc.uid_sealed) : undefined;
      return id ? this.#load(id, doc) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (typeof userCode !== 'string') return undefined;
      const doc = await this.collection.findOne({ user_code: sha256Hex(userCode) });
      const id = doc?.user_code_sealed ? open('user_code', userCode, `${this.model}:${doc._id}`, doc.user_code_sealed) : undefined;
      return id ? this.#load(id, doc) : undefined;
    }

    /**
     * Claims the artifact (see the top of this file): the first caller marks it used and returns; every
     * later one gets AlreadyConsumed, except a refresh token presented again inside the reuse grace
     * window, which returns as if it were the first (AdapterHooks.refreshReuseGraceSeconds).
     */
    async consume(id: string): Promise<void> {
      const _id = sha256Hex(id);
      const claimId = `${this.model}:${_id}`;
      const now = new Date();
      const ttlSeconds = hooks.ttlSeconds?.[this.model] ?? DEFAULT_CLAIM_TTL_SECONDS;
      try {
        await claims.insertOne({ _id: claimId, claimed_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        if (graceMs > 0 && this.model === 'RefreshToken') {
          const first = await claims.findOne({ _id: claimId });
          if (first && inGrace(this.model, first.claimed_at, now.getTime())) return;
        }
        throw new AlreadyConsumed(this.model);
      }
      // Marked used too, so a later presentation is refused before it gets this far.
      await this.collection.updateOne({ _id }, { $set: { consumed_at: now } });
    }

    /**
     * An interaction is destroyed when the authorization it belongs to resumes (oidc-provider's resume
     * step), and only the request whose delete removed it may go on: a delete of one document by `_id`
     * reports how many it removed from a single DELETE statement (FerretDB 1.24 SQLite: the statement's
     * changes count, `internal/backends/sqlite/collection.go` DeleteAll; MongoDB: a single-document
     * write), so of concurrent deletes exactly one counts 1. The others get AlreadyConsumed.
     */
    async destroy(id: string): Promise<void> {
      const { deletedCount } = await this.collection.deleteOne({ _id: sha256Hex(id) });
      if (this.model === 'Interaction' && deletedCount === 0) throw new AlreadyConsumed(this.model);
      if (this.model === 'RefreshToken') await consumedRefreshTokens.deleteOne({ _id: sha256Hex(id) });
      if (this.model === 'Grant') await hooks.onGrantRevoked?.(id);
      if (this.model === 'AccessToken' || this.model === 'ClientCredentials') await hooks.onAccessTokenRevoked?.(id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.collection.deleteMany({ grant_id: grantId });
      if (this.model === 'RefreshToken') await consumedRefreshTokens.deleteMany({ grant_id: grantId });
    }

    #load(id: string, doc: StoredArtifact | null): AdapterPayload | undefined {
      if (!doc) return undefined;
      if (doc.expires_at && doc.expires_at.getTime() <= Date.now()) return undefined;
      const text = open('payload', id, `${this.model}:${doc._id}`, doc.sealed);
      if (text === undefined) return undefined;
      const payload = JSON.parse(text) as AdapterPayload;
      // Inside the reuse grace window a rotated refresh token is presented as unused; consume() then lets it through.
      if (doc.consumed_at && !inGrace(this.model, doc.consumed_at)) payload.consumed = Math.floor(doc.consumed_at.getTime() / 1000);
      return payload;
    }
  };
}
