import type { Collection, Db } from 'mongodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { claimOnce, writeUnique } from '../../db/claims.ts';
import { sha256Hex } from '../../lib/hash.ts';
import type { OAuthClientRepository } from '../oauthClients.ts';
import { CONSUMED_REFRESH_TOKENS, OIDC_CLAIMS, collectionName, storedArtifact, type ClaimDoc, type StoredArtifact } from './artifacts.ts';
import { clientMetadata } from './clients.ts';
import { openUnder, recordOf } from './sealing.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { deleteInBatches } from '../../db/deleteInBatches.ts';

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
  /** What the reuse grace window is measured by (src/lib/clock.ts); default the system clock. Artifact lifetimes are oidc-provider's, in real time. */
  clock?: Clock;
}

/** How long a claim is kept when the model's lifetime is not given (AdapterHooks.ttlSeconds). */
const DEFAULT_CLAIM_TTL_SECONDS = 24 * 3600;

/**
 * A second use of a single-use artifact: thrown by consume() (and by destroy() of an interaction) to
 * every caller but the first, whichever instance it runs on. src/oauth/provider/singleUse.ts turns it into the
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
 * Saves an artifact. Most saves are of a new artifact (every token, code and rotated refresh token): an
 * insert. FerretDB 1.24 runs an upsert of an `_id` it does not have yet as a scan of the whole collection
 * (measured: 55 ms at 20,000 documents, against 0.5 ms for the insert), so the upsert is only the
 * fallback for an artifact saved again (a session, a grant, an interaction). A replacement by `_id` alone
 * is pushed down; if the artifact was deleted in between, the upsert puts it back as before.
 */
async function saveArtifact(collection: Collection<StoredArtifact>, stored: StoredArtifact): Promise<void> {
  const { _id, ...doc } = stored;
  if (await claimOnce(collection, stored)) return;
  // Saved concurrently by another request (parallel requests of one browser save its session): an
  // upsert that did not see the document inserted it too (FerretDB's upsert is a find, then an
  // insert), so replace what is there now.
  await writeUnique(
    () => collection.replaceOne({ _id }, doc, { upsert: true }),
    () => collection.replaceOne({ _id }, doc),
  );
}

/** The reuse grace window of refresh tokens (AdapterHooks.refreshReuseGraceSeconds). */
function reuseGrace(seconds: number | undefined) {
  const graceMs = Math.max(0, seconds ?? 0) * 1000;
  return {
    /** Whether a claim already taken may be taken again (a refresh token inside the window). */
    applies: (model: string) => model === 'RefreshToken' && graceMs > 0,
    /** Whether an artifact of `model` used at `usedAt` is still inside the window. */
    covers: (model: string, usedAt: Date, now = Date.now()) => model === 'RefreshToken' && graceMs > 0 && now - usedAt.getTime() < graceMs,
  };
}

/**
 * The oidc-provider adapter over MongoDB (./index.ts says what is stored and why). `Client` is read from
 * Slipway's own clients; every other model is an artifact collection.
 */
export function createAdapterClass(db: Db, clients: OAuthClientRepository, hooks: AdapterHooks = {}) {
  const consumedRefreshTokens = db.collection<StoredArtifact>(CONSUMED_REFRESH_TOKENS);
  const claims = db.collection<ClaimDoc>(OIDC_CLAIMS);
  const grace = reuseGrace(hooks.refreshReuseGraceSeconds);
  const clock = hooks.clock ?? systemClock;

  /** The payload of a stored artifact presented with its id, unless expired or not opening. */
  function load(model: string, id: string, doc: StoredArtifact | null): AdapterPayload | undefined {
    if (!doc) return undefined;
    if (doc.expires_at && doc.expires_at.getTime() <= Date.now()) return undefined;
    const text = openUnder('payload', id, recordOf(model, doc._id), doc.sealed);
    if (text === undefined) return undefined;
    const payload = JSON.parse(text) as AdapterPayload;
    // Inside the reuse grace window a rotated refresh token is presented as unused; consume() then lets it through.
    // A used device code is presented as unused too: its second use is refused by the claim in consume(),
    // never by oidc-provider's own check of `consumed`, which revokes the grant (docs/product.md §12).
    if (doc.consumed_at && model !== 'DeviceCode' && !grace.covers(model, doc.consumed_at, clock.now())) payload.consumed = Math.floor(doc.consumed_at.getTime() / 1000);
    return payload;
  }

  /**
   * Claims the artifact (./index.ts, "Single use"): the first caller marks it used and returns; every
   * later one gets AlreadyConsumed, except a refresh token presented again inside the reuse grace
   * window, which returns as if it were the first.
   */
  async function claim(model: string, _id: string, now: Date): Promise<void> {
    const claimId = `${model}:${_id}`;
    const ttlSeconds = hooks.ttlSeconds?.[model] ?? DEFAULT_CLAIM_TTL_SECONDS;
    if (await claimOnce(claims, { _id: claimId, claimed_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) })) return;
    if (grace.applies(model)) {
      const first = await claims.findOne({ _id: claimId });
      if (first && grace.covers(model, first.claimed_at, now.getTime())) return;
    }
    throw new AlreadyConsumed(model);
  }

  /** Finds by a secondary lookup key (a session's uid, a device userCode): stored hashed, the id sealed under it. */
  async function findBy(model: string, collection: Collection<StoredArtifact>, field: 'uid' | 'user_code', value: string) {
    const doc = await collection.findOne({ [field]: sha256Hex(value) });
    const sealedId = doc?.[`${field}_sealed`];
    const id = doc && sealedId ? openUnder(field, value, recordOf(model, doc._id), sealedId) : undefined;
    return id ? load(model, id, doc) : undefined;
  }

  return class MongoAdapter implements Adapter {
    readonly model: string;
    readonly collection: Collection<StoredArtifact>;

    constructor(model: string) {
      this.model = model;
      this.collection = db.collection<StoredArtifact>(collectionName(model));
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client') throw new Error('clients are registered through Slipway, not the provider');
      await saveArtifact(this.collection, storedArtifact(this.model, id, payload, expiresIn ? new Date(Date.now() + expiresIn * 1000) : null));
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
      if (!doc && this.model === 'RefreshToken') return load(this.model, id, await consumedRefreshTokens.findOne({ _id }));
      return load(this.model, id, doc);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return typeof uid === 'string' ? await findBy(this.model, this.collection, 'uid', uid) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return typeof userCode === 'string' ? await findBy(this.model, this.collection, 'user_code', userCode) : undefined;
    }

    async consume(id: string): Promise<void> {
      const _id = sha256Hex(id);
      const now = clock.date();
      await claim(this.model, _id, now);
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
      await deleteInBatches(this.collection, { grant_id: grantId });
      if (this.model === 'RefreshToken') await deleteInBatches(consumedRefreshTokens, { grant_id: grantId });
    }
  };
}
