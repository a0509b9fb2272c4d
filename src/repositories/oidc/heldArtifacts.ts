import { LRUCache } from 'lru-cache';
import type { AdapterPayload } from 'oidc-provider';

/** What is held of an artifact: its opened payload as text, until when it may be answered, its own expiry. */
interface Held {
  text: string;
  until: number;
  expiresAt: number | null;
  grantId: string | null;
}

/** An artifact as read from the database: its opened payload, its expiry and whether it may be held; or nothing. */
export type ReadArtifact = { payload: AdapterPayload; expiresAt: number | null; hold: boolean } | undefined;

/**
 * Artifacts (grants, refresh tokens) answered from memory for at most `holdMs` after they were read from
 * the database, at most `max` of them, keyed by their stored `_id`. Each answer is a fresh object (the
 * provider changes what it is given). Concurrent requests for an artifact not held (or held too long)
 * wait for one read rather than each sending their own. Forgetting an artifact drops its read in flight,
 * and forgetting a grant's artifacts keeps every read in flight from being held (a read's grant is known
 * only once it ends), so what such a read returns is answered but not held, and a request after the
 * change reads again.
 */
export class HeldArtifacts {
  readonly #holdMs: number;
  readonly #held: LRUCache<string, Held>;
  readonly #reads = new Map<string, Promise<(Held & { hold: boolean }) | undefined>>();
  /** The `_id`s held (or being read) for each grant, so that a grant's revocation forgets them all. */
  readonly #byGrant = new Map<string, Set<string>>();
  /** Counts forgetGrant() calls: a read started before the latest one is not held (its grant was unknown then). */
  #grantsForgotten = 0;

  constructor(holdMs: number, max: number) {
    this.#holdMs = holdMs;
    this.#held = new LRUCache<string, Held>({ max, dispose: (held, _id) => this.#untrack(held.grantId, _id) });
  }

  /**
   * The artifact stored under `_id`: from memory when read in the last `holdMs` and not expired, else
   * from `read` (shared by concurrent callers) and then held. `now` is the clock the hold is measured by.
   */
  async find(_id: string, now: number, read: () => Promise<ReadArtifact>): Promise<AdapterPayload | undefined> {
    const held = this.#held.get(_id);
    if (held && held.until > now && (held.expiresAt === null || held.expiresAt > Date.now())) return JSON.parse(held.text) as AdapterPayload;
    let reading = this.#reads.get(_id);
    if (!reading) {
      const forgottenBefore = this.#grantsForgotten;
      const started = read().then((found) => found && { ...this.#opened(found.payload, found.expiresAt, now), hold: found.hold });
      reading = started;
      this.#reads.set(_id, started);
      // Held only if neither the artifact nor any grant was forgotten while it was read (forget() drops the read).
      const settle = (opened: (Held & { hold: boolean }) | undefined) => {
        if (this.#reads.get(_id) !== started) return;
        this.#reads.delete(_id);
        if (!opened?.hold || this.#grantsForgotten !== forgottenBefore) return;
        const { hold: _hold, ...kept } = opened;
        this.#keep(_id, kept);
      };
      started.then(settle, () => settle(undefined));
    }
    const opened = await reading;
    return opened ? (JSON.parse(opened.text) as AdapterPayload) : undefined;
  }

  /**
   * Holds an artifact this process has just stored under `_id` (a new one: nothing else can have held
   * or be reading it), as if it had been read now.
   */
  remember(_id: string, payload: AdapterPayload, expiresAt: number | null, now: number): void {
    this.#reads.delete(_id);
    this.#keep(_id, this.#opened(payload, expiresAt, now));
  }

  /** Drops the artifact stored under `_id` (and its read in flight). */
  forget(_id: string): void {
    this.#held.delete(_id);
    this.#reads.delete(_id);
  }

  /** Drops every artifact of the grant held here; no read in flight now is held when it ends. */
  forgetGrant(grantId: string): void {
    this.#grantsForgotten++;
    const ids = this.#byGrant.get(grantId);
    if (!ids) return;
    // Each forget() also takes the id off its grant (the cache's dispose, #untrack).
    for (const _id of [...ids]) this.forget(_id);
  }

  /** What is held of `payload` read (or stored) at `now`. */
  #opened(payload: AdapterPayload, expiresAt: number | null, now: number): Held {
    return { text: JSON.stringify(payload), until: now + this.#holdMs, expiresAt, grantId: typeof payload.grantId === 'string' ? payload.grantId : null };
  }

  /** Holds `held` under `_id`, listed under its grant. */
  #keep(_id: string, held: Held): void {
    this.#held.set(_id, held);
    if (held.grantId === null) return;
    let ids = this.#byGrant.get(held.grantId);
    if (!ids) this.#byGrant.set(held.grantId, (ids = new Set()));
    ids.add(_id);
  }

  #untrack(grantId: string | null, _id: string): void {
    if (grantId === null) return;
    const ids = this.#byGrant.get(grantId);
    if (!ids) return;
    ids.delete(_id);
    if (ids.size === 0) this.#byGrant.delete(grantId);
  }
}
