import { LRUCache } from 'lru-cache';

/**
 * Records (or small lists) by key held in memory for at most `ttlMs` (an LRU of at most `max` entries), for hot paths
 * that would otherwise read the same document on every request (the OAuth client and the user on the
 * token endpoint). Changes made through this process call `forget` right after the write, so they apply
 * here at once; changes made elsewhere (another instance, the CLI) apply within `ttlMs`. Missing records
 * are not cached, so a record created anywhere is found at once. A load that was under way while
 * anything was forgotten is returned but not kept, so it cannot put back what a write just replaced.
 * With `ttlMs` 0 nothing is cached.
 */
export class RecordCache<V extends object> {
  readonly #entries: LRUCache<string, V> | undefined;
  readonly #load: (id: string) => Promise<V | null>;
  #generation = 0;

  constructor(load: (id: string) => Promise<V | null>, options: { ttlMs: number; max?: number }) {
    this.#load = load;
    if (options.ttlMs > 0) this.#entries = new LRUCache<string, V>({ max: options.max ?? 10_000, ttl: options.ttlMs, ttlAutopurge: false });
  }

  async get(id: string): Promise<V | null> {
    if (!this.#entries) return await this.#load(id);
    const hit = this.#entries.get(id);
    if (hit) return hit;
    const generation = this.#generation;
    const loaded = await this.#load(id);
    if (loaded && generation === this.#generation) this.#entries.set(id, loaded);
    return loaded;
  }

  /** Drops `id` (after a write to it), and keeps no load that was under way. */
  forget(id: string): void {
    this.#generation += 1;
    this.#entries?.delete(id);
  }

  /** Drops everything (after a write whose key is not at hand), and keeps no load that was under way. */
  forgetAll(): void {
    this.#generation += 1;
    this.#entries?.clear();
  }
}
