/**
 * A small per-process cache whose entries are trusted for `ttlMs` at most, so a change in the database
 * (a removed user, a new role) takes effect within that bound. Concurrent misses for one key share one
 * load. Bounded in size: the oldest entry goes first.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #pending = new Map<string, Promise<V>>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlMs: number, max = 10_000) {
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  async get(key: string, load: (key: string) => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const pending = this.#pending.get(key);
    if (pending) return await pending;
    const loading = load(key).then(
      (value) => {
        this.#pending.delete(key);
        if (this.#ttlMs > 0) {
          this.#entries.delete(key);
          if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
          this.#entries.set(key, { value, expires: Date.now() + this.#ttlMs });
        }
        return value;
      },
      (err: unknown) => {
        this.#pending.delete(key);
        throw err;
      },
    );
    this.#pending.set(key, loading);
    return await loading;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops every cached entry whose value matches (e.g. all sessions of one user). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.#entries.delete(key);
  }
}
