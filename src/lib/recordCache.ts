import { LRUCache } from 'lru-cache';

/** A load that failed, told apart from a load the cache abandoned because its key was forgotten. */
class LoadFailed {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
}

/**
 * Records by key held in memory for at most `ttlMs` (an LRU of at most `max` entries), for hot paths
 * that would otherwise read the same document on every request (the OAuth client and the user on the
 * token endpoint and /v1, dashboard sessions). Concurrent misses for one key share one load
 * (`LRUCache.fetch`). Changes made through this process call `forget` right after the write, so they
 * apply here at once; changes made elsewhere (another instance, the CLI) apply within `ttlMs`. Missing
 * records are not cached, so a record created anywhere is found at once. A load under way when its key
 * is forgotten is abandoned by the cache and read again, so it cannot put back what a write just
 * replaced. With `ttlMs` 0 nothing is cached.
 */
export class RecordCache<V extends object> {
  readonly #entries: LRUCache<string, V> | undefined;
  readonly #load: (id: string) => Promise<V | null>;

  constructor(load: (id: string) => Promise<V | null>, options: { ttlMs: number; max?: number }) {
    this.#load = load;
    if (options.ttlMs > 0)
      this.#entries = new LRUCache<string, V>({
        max: options.max ?? 10_000,
        ttl: options.ttlMs,
        fetchMethod: async (id) => {
          try {
            return (await load(id)) ?? undefined;
          } catch (err) {
            throw new LoadFailed(err);
          }
        },
      });
  }

  async get(id: string): Promise<V | null> {
    if (!this.#entries) return await this.#load(id);
    try {
      return (await this.#entries.fetch(id)) ?? null;
    } catch (err) {
      if (err instanceof LoadFailed) throw err.cause;
      // Forgotten while loading (a write happened meanwhile): read it again, after the write.
      return await this.#load(id);
    }
  }

  /** Drops `id` (after a write to it), and keeps no load of it that was under way. */
  forget(id: string): void {
    this.#entries?.delete(id);
  }

  /** Drops every entry whose record matches (e.g. all sessions of one user). */
  forgetWhere(matches: (value: V) => boolean): void {
    if (!this.#entries) return;
    for (const [id, value] of this.#entries.entries()) if (matches(value)) this.#entries.delete(id);
  }

  /** Drops everything (after a write whose key is not at hand), and keeps no load that was under way. */
  forgetAll(): void {
    this.#entries?.clear();
  }
}
