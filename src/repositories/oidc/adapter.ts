import type { Collection, Db } from 'mongodb';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { claimOnce, claimWith, writeUnique } from '../../db/claims.ts';
import { sha256Hex } from '../../lib/hash.ts';
import type { OAuthClientRepository } from '../oauthClients.ts';
import { CONSUMED_REFRESH_TOKENS, OIDC_CLAIMS, collectionName, refreshTokenClaimId, storedArtifact, type ClaimDoc, type StoredArtifact } from './artifacts.ts';
import { clientMetadata } from './clients.ts';
import { HeldArtifacts, type ReadArtifact } from './heldArtifacts.ts';
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
  /**
   * How long a grant or an unused refresh token read from the database may be answered from memory (the
   * revocation bound elsewhere, REVOCATION_REFRESH_SECONDS); one saved, consumed, destroyed or revoked
   * on this instance is dropped from memory at once. 0 or absent: each is read from the database.
   */
  holdMs?: number;
  /**
   * The request being handled, if any (an object that lives as long as it): a refresh token consumed in a
   * request is claimed by the insert of its successor in the same request (one ordered insert of the
   * claim and the new token), not by a write of its own. Without it every claim is made at once.
   */
  currentRequest?: () => object | undefined;
  /**
   * Subscribes to the grants revoked in this process (whichever way: the provider, a service deleting a
   * user's or client's grants), so that a grant held in memory is dropped at once.
   */
  onGrantRevokedHere?: (forget: (grantId: string) => void) => void;
}

/** At most this many grants, and as many refresh tokens, are held in memory (AdapterHooks.holdMs). */
const HELD_ENTRIES = 10_000;

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

/** A refresh token consumed in the current request, to be claimed by its successor's insert. */
interface PendingClaim {
  _id: string;
  at: Date;
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
  const refreshTokenClaims = db.collection<ClaimDoc>(collectionName('RefreshToken'));
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
   * window, which returns as if it were the first. A refresh token's claim is a document beside it in
   * its own collection (so that its successor can be inserted with it, rotate() below); the others' are
   * in `oidc_claims`.
   */
  async function claim(model: string, _id: string, now: Date): Promise<void> {
    if (model === 'RefreshToken') {
      if (await claimOnce(refreshTokenClaims, refreshTokenClaim(_id, now))) return;
      if (await insideGrace(_id, now)) return;
      throw new AlreadyConsumed(model);
    }
    const claimId = `${model}:${_id}`;
    const ttlSeconds = hooks.ttlSeconds?.[model] ?? DEFAULT_CLAIM_TTL_SECONDS;
    if (await claimOnce(claims, { _id: claimId, claimed_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) })) return;
    throw new AlreadyConsumed(model);
  }

  /** The claim of the refresh token stored under `_id`, kept as long as the token can be presented. */
  function refreshTokenClaim(_id: string, now: Date): ClaimDoc {
    const ttlSeconds = hooks.ttlSeconds?.RefreshToken ?? DEFAULT_CLAIM_TTL_SECONDS;
    return { _id: refreshTokenClaimId(_id), claimed_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) };
  }

  /** Whether the refresh token stored under `_id` was claimed inside the reuse grace window (may be taken again). */
  async function insideGrace(_id: string, now: Date): Promise<boolean> {
    if (!grace.applies('RefreshToken')) return false;
    const first = await refreshTokenClaims.findOne({ _id: refreshTokenClaimId(_id) });
    return !!first && grace.covers('RefreshToken', first.claimed_at, now.getTime());
  }

  /**
   * Rotation: the refresh token `used` (consumed earlier in this request) is claimed by the insert of its
   * successor: one ordered insert of the claim, then the new token. Exactly one of any number of
   * concurrent rotations of the same token inserts the claim and so its successor; the others insert
   * nothing and get AlreadyConsumed (inside the reuse grace window they store their successor after all).
   * The used token is then marked used (`consumed_at`), as before, by the one that claimed it.
   */
  async function rotate(collection: Collection<StoredArtifact>, used: PendingClaim, successor: StoredArtifact): Promise<void> {
    if (await claimWith(refreshTokenClaims as unknown as Collection<StoredArtifact | ClaimDoc>, refreshTokenClaim(used._id, used.at), [successor])) {
      await collection.updateOne({ _id: used._id }, { $set: { consumed_at: used.at } });
      return;
    }
    if (!(await insideGrace(used._id, used.at))) throw new AlreadyConsumed('RefreshToken');
    await saveArtifact(collection, successor);
  }

  /**
   * Grants and refresh tokens read recently (AdapterHooks.holdMs), held opened: a grant saved or
   * destroyed here, a refresh token saved, consumed or destroyed here, and every refresh token of a grant
   * revoked here are dropped at once.
   */
  const holdMs = Math.max(0, hooks.holdMs ?? 0);
  const held: Partial<Record<string, HeldArtifacts>> =
    holdMs > 0 ? { Grant: new HeldArtifacts(holdMs, HELD_ENTRIES), RefreshToken: new HeldArtifacts(holdMs, HELD_ENTRIES) } : {};
  const forgetGrant = (grantId: string) => {
    held.Grant?.forget(sha256Hex(grantId));
    held.RefreshToken?.forgetGrant(grantId);
  };
  hooks.onGrantRevokedHere?.(forgetGrant);
  /** Refresh tokens consumed in a request and not yet claimed: claimed by the insert of their successor (rotate()). */
  const pendingClaims = new WeakMap<object, PendingClaim>();

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
      const stored = storedArtifact(this.model, id, payload, expiresIn ? new Date(Date.now() + expiresIn * 1000) : null);
      held[this.model]?.forget(stored._id);
      const request = this.model === 'RefreshToken' ? hooks.currentRequest?.() : undefined;
      const used = request ? pendingClaims.get(request) : undefined;
      if (request && used) {
        pendingClaims.delete(request);
        await rotate(this.collection, used, stored);
      } else {
        await saveArtifact(this.collection, stored);
      }
      // A new refresh token is held as stored (its next refresh, on this instance, reads nothing).
      if (this.model === 'RefreshToken') held.RefreshToken?.remember(stored._id, payload, stored.expires_at?.getTime() ?? null, clock.now());
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
      const store = held[this.model];
      if (store) return await store.find(_id, clock.now(), () => this.read(id, _id));
      return (await this.read(id, _id))?.payload;
    }

    /** The artifact stored under `_id` (presented as `id`), opened, with its expiry; nothing when it is not there, expired or does not open. */
    private async read(id: string, _id: string): Promise<ReadArtifact> {
      let doc = await this.collection.findOne({ _id });
      // A used refresh token moved by an earlier version is looked for there only when it is not a live one.
      if (!doc && this.model === 'RefreshToken') doc = await consumedRefreshTokens.findOne({ _id });
      const payload = load(this.model, id, doc);
      // A used refresh token is answered as it is read each time (the reuse grace window may end meanwhile).
      return payload && doc ? { payload, expiresAt: doc.expires_at?.getTime() ?? null, hold: !doc.consumed_at } : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return typeof uid === 'string' ? await findBy(this.model, this.collection, 'uid', uid) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return typeof userCode === 'string' ? await findBy(this.model, this.collection, 'user_code', userCode) : undefined;
    }

    async consume(id: string): Promise<void> {
      const _id = sha256Hex(id);
      held[this.model]?.forget(_id);
      const now = clock.date();
      const request = this.model === 'RefreshToken' ? hooks.currentRequest?.() : undefined;
      if (request) {
        // Claimed by the insert of the token that replaces it (upsert(), rotate()), later in this request.
        pendingClaims.set(request, { _id, at: now });
        return;
      }
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
      held[this.model]?.forget(sha256Hex(id));
      const { deletedCount } = await this.collection.deleteOne({ _id: sha256Hex(id) });
      if (this.model === 'Interaction' && deletedCount === 0) throw new AlreadyConsumed(this.model);
      if (this.model === 'RefreshToken') await consumedRefreshTokens.deleteOne({ _id: sha256Hex(id) });
      if (this.model === 'Grant') await hooks.onGrantRevoked?.(id);
      if (this.model === 'AccessToken' || this.model === 'ClientCredentials') await hooks.onAccessTokenRevoked?.(id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      forgetGrant(grantId);
      await deleteInBatches(this.collection, { grant_id: grantId });
      if (this.model === 'RefreshToken') await deleteInBatches(consumedRefreshTokens, { grant_id: grantId });
    }
  };
}
