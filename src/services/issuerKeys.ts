import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../logger.ts';
import type { IssuerKeysDoc } from '../repositories/federation.ts';
import type { Repositories } from '../repositories/index.ts';
import { getCheckedJson } from './webhookSender.ts';
import { checkTarget, type TargetPolicy } from './webhookTargets.ts';
import { Service } from './service.ts';

/** docs/product.md §13: an issuer's keys are trusted this long after they were fetched. */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** An unknown `kid` (or a failed fetch) makes the keys be fetched again at most this often per issuer. */
export const REFETCH_INTERVAL_MS = 60_000;
/** One outbound request (discovery or JWKS): connecting, sending, reading. */
const FETCH_TIMEOUT_MS = 5_000;
/** The most read of a discovery document or a JWKS. */
const MAX_DOCUMENT_BYTES = 64 * 1024;
/** The most keys kept of one JWKS. */
const MAX_KEYS = 20;
/** How long an instance waits for another's fetch of the same issuer before giving up (the fetch's own bound, twice). */
const WAIT_FOR_OTHER_MS = 2 * FETCH_TIMEOUT_MS + 1_000;
const WAIT_STEP_MS = 50;
/** Issuers whose keys one instance keeps in memory (the least recently used are read again from the database). */
const MAX_ISSUERS_IN_MEMORY = 1000;

export interface IssuerKeysDeps {
  federation: Repositories['federation'];
  /** The SSRF rules of webhooks (src/services/webhookTargets.ts), with loopback allowed by FEDERATION_ALLOW_LOOPBACK. */
  targets: TargetPolicy;
  clock: Clock;
  logger: Logger;
}

/** The issuer's keys as this instance last read them (from the database or its own fetch). */
interface Known {
  doc: IssuerKeysDoc;
  kids: Set<string>;
  jwks: JWTVerifyGetKey | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The public keys of a CI provider's issuer (docs/product.md §13), from
 * `{issuer}/.well-known/openid-configuration` → `jwks_uri`. What an issuer is fetched from is chosen by
 * a tenant (a trust policy), so every fetch follows the webhook rules (src/services/webhookTargets.ts:
 * https, public addresses only, the connection pinned to the checked addresses, no redirects), is
 * bounded in time and size, and happens at most once per REFETCH_INTERVAL_MS per issuer across every
 * instance: the fetch is a claim on the issuer's current generation of keys (src/db/claims.ts), its
 * result (or failure) is stored for every instance, and the others wait for it. Keys are trusted
 * KEYS_MAX_AGE_MS; a `kid` they lack makes them be fetched again, no sooner than REFETCH_INTERVAL_MS
 * after the last fetch. The caller only asks for issuers some trust policy names, so no one can make
 * Slipway fetch an address no policy names, nor fetch a named one more than once a minute.
 */
export class IssuerKeys extends Service<IssuerKeysDeps> {
  readonly #known = new LRUCache<string, Known>({ max: MAX_ISSUERS_IN_MEMORY });
  readonly #inFlight = new Map<string, Promise<Known | null>>();

  /** The keys to verify `kid` of `issuer` with, or null when the issuer has none such (now). */
  async keysFor(issuer: string, kid: string | undefined): Promise<JWTVerifyGetKey | null> {
    let known = this.#known.get(issuer) ?? null;
    if (!known || !this.#fresh(known) || !this.#has(known, kid)) known = await this.#refresh(issuer, known, kid);
    return known && this.#fresh(known) && this.#has(known, kid) ? known.jwks : null;
  }

  #fresh(known: Known): boolean {
    return known.jwks !== null && this.deps.clock.now() - known.doc.fetched_at.getTime() < KEYS_MAX_AGE_MS;
  }

  #has(known: Known, kid: string | undefined): boolean {
    return kid === undefined ? known.kids.size > 0 : known.kids.has(kid);
  }

  /** One refresh per issuer at a time on this instance; the others wait for it. */
  async #refresh(issuer: string, known: Known | null, kid: string | undefined): Promise<Known | null> {
    const running = this.#inFlight.get(issuer);
    if (running) return await running;
    const refresh = this.#refreshShared(issuer, known, kid).finally(() => this.#inFlight.delete(issuer));
    this.#inFlight.set(issuer, refresh);
    return await refresh;
  }

  /** Another instance may have fetched already; else, if the interval allows, one instance fetches. */
  async #refreshShared(issuer: string, known: Known | null, kid: string | undefined): Promise<Known | null> {
    const stored = await this.deps.federation.findKeys(issuer);
    const current = stored ? this.#remember(stored) : known;
    if (current && this.#fresh(current) && this.#has(current, kid)) return current;
    const generation = current?.doc.fetched_at ?? null;
    if (generation && this.deps.clock.now() - generation.getTime() < REFETCH_INTERVAL_MS) return current;
    const keepUntil = new Date(this.deps.clock.now() + KEYS_MAX_AGE_MS);
    if (await this.deps.federation.claimFetch(issuer, generation, keepUntil)) return this.#remember(await this.#fetch(issuer));
    // Another instance (or an earlier request) holds this generation's fetch: wait for its result.
    for (let waited = 0; waited < WAIT_FOR_OTHER_MS; waited += WAIT_STEP_MS) {
      await sleep(WAIT_STEP_MS);
      const after = await this.deps.federation.findKeys(issuer);
      if (after && after.fetched_at.getTime() !== generation?.getTime()) return this.#remember(after);
    }
    return current;
  }

  #remember(doc: IssuerKeysDoc): Known {
    const keys = doc.jwks?.keys ?? [];
    const known: Known = {
      doc,
      kids: new Set(keys.map((k) => k.kid).filter((k): k is string => typeof k === 'string')),
      jwks: doc.jwks ? createLocalJWKSet(doc.jwks as unknown as JSONWebKeySet) : null,
    };
    this.#known.set(doc._id, known);
    return known;
  }

  /** Fetches and stores the issuer's keys (or the failure, so that no one retries before the interval). */
  async #fetch(issuer: string): Promise<IssuerKeysDoc> {
    const fetchedAt = this.deps.clock.date();
    let doc: IssuerKeysDoc;
    try {
      doc = { _id: issuer, jwks: await this.#download(issuer), fetched_at: fetchedAt, error: null };
    } catch (err) {
      const error = err instanceof Error ? err.message : 'failed';
      this.deps.logger.warn({ issuer, error }, 'issuer keys not fetched');
      doc = { _id: issuer, jwks: null, fetched_at: fetchedAt, error };
    }
    await this.deps.federation.saveKeys(doc);
    return doc;
  }

  async #download(issuer: string): Promise<{ keys: Record<string, unknown>[] }> {
    const discoveryUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const discovery = await this.#getJson(discoveryUrl, 'discovery');
    if (typeof discovery !== 'object' || discovery === null) throw new Error('discovery: not an object');
    const { issuer: stated, jwks_uri: jwksUri } = discovery as { issuer?: unknown; jwks_uri?: unknown };
    if (stated !== issuer) throw new Error('discovery: issuer differs');
    if (typeof jwksUri !== 'string') throw new Error('discovery: no jwks_uri');
    const jwks = await this.#getJson(jwksUri, 'jwks');
    const keys = (jwks as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) throw new Error('jwks: no keys');
    // Public keys of the two accepted types only; private parts (if an issuer ever served them) are dropped.
    const kept = keys
      .filter((k): k is Record<string, unknown> => typeof k === 'object' && k !== null && (k.kty === 'RSA' || k.kty === 'EC'))
      .slice(0, MAX_KEYS)
      .map(({ kty, kid, use, alg, n, e, crv, x, y }) => Object.fromEntries(Object.entries({ kty, kid, use, alg, n, e, crv, x, y }).filter(([, v]) => typeof v === 'string')));
    return { keys: kept };
  }

  async #getJson(url: string, what: string): Promise<unknown> {
    try {
      const target = await checkTarget(url, this.deps.targets);
      return await getCheckedJson(target, FETCH_TIMEOUT_MS, MAX_DOCUMENT_BYTES);
    } catch (err) {
      throw new Error(`${what}: ${err instanceof Error ? err.message : 'failed'}`, { cause: err });
    }
  }
}
