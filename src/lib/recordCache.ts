import { LRUCache } from 'lru-cache';

/** A load that failed, told apart from a load the cache abandoned because its key was forgotten. */
class LoadFailed {
  readonly cause: unknown;
  constructor(cause: unknown) {
    this.cause = cause;
  }
}

export interface RecordCacheOptions {
  /** How long a found record is trusted; 0 caches nothing. */
  ttlMs: number;
  /** How long "not found" is trusted (default 0: a record created anywhere is found at once). */
  missTtlMs?: number;
  /** At most this many entries; the least recently used go first. Default 10,000. */
  max?: number;
  /** The clock (tests move it forward). Default `performance.now`. */
  now?: () => number;
}

/**
 * Records by key held in memory for a bounded time (an LRU on `lru-cache`), for hot paths that would
 * otherwise read the same document on every request: the OAuth client and the user on the token
 * endpoint and /v1, API keys, dashboard sessions. Concurrent misses for one key share one load
 * (`LRUCache.fetch`). Changes made through this process call `forget` right after the write, so they
 * apply here at once; changes made elsewhere (another instance, the CLI) apply within `ttlMs`. A load
 * under way when its key is forgotten is abandoned by the cache and read again, so it cannot put back
 * what a write just replaced.
 */
export class RecordCache<V extends object> {
  readonly #entries: LRUCache<string, { value: V | null }> | undefined;
  readonly #load: (id: string) => Promise<V | null>;
  /** Keys being loaded now: `forgetWhere` cannot see their records yet, so it abandons them all. */
  readonly #loading = new Set<string>();

  constructor(load: (id: string) => Promise<V | null>, options: RecordCacheOptions) {
    this.#load = load;
    if (options.ttlMs <= 0) return;
    const missTtl = Math.min(options.missTtlMs ?? 0, options.ttlMs);
    this.#entries = new LRUCache<string, { value: V | null }>({
      max: options.max ?? 10_000,
      ttl: options.ttlMs,
      ...(options.now ? { perf: { now: options.now }, ttlResolution: 0 } : {}),
      fetchMethod: async (id, _stale, { options: set }) => {
        let value: V | null;
        this.#loading.add(id);
        try {
          value = await load(id);
        } catch (err) {
          throw new LoadFailed(err);
        } finally {
          this.#loading.delete(id);
        }
        if (value !== null) return { value };
        if (missTtl <= 0) return undefined;
        set.ttl = missTtl;
        return { value: null };
      },
    });
  }

  async get(id: string): Promise<V | null> {
    if (!this.#entries) return await this.#load(id);
    try {
      return (await this.#entries.fetch(id))?.value ?? null;
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

  /** Drops every entry whose record matches (e.g. all sessions of one user), and every load under way. */
  forgetWhere(matches: (value: V) => boolean): void {
    if (!this.#entries) return;
    for (const [id, entry] of this.#entries.entries()) if (entry.value && matches(entry.value)) this.#entries.delete(id);
    for (const id of [...this.#loading]) this.#entries.delete(id);
  }

  /** Drops everything (after a write whose key is not at hand), and keeps no load that was under way. */
  forgetAll(): void {
    this.#entries?.clear();
  }
}
