import type { RateLimitRepository } from './rateLimits.ts';

/**
 * The hint of where a window's free shares start is raised at every HINT_EVERY-th share: it lags at
 * most that many behind, which costs an instance catching up as many extra probes, and saves an update
 * on every other claim.
 */
const HINT_EVERY = 8;

/**
 * How a window's budget of `limit` requests is cut into numbered shares, the same on every instance.
 * Far from the limit a share is a block of about 1% of it, so one insert admits many requests; the last
 * shares (about 10% of the limit) are single requests, so the end of the budget is not stranded in a
 * block another instance holds.
 */
export function shareLayout(limit: number) {
  const size = Math.max(1, Math.floor(limit / 100));
  const singles = size === 1 ? limit : Math.min(limit, 10 * size);
  const blocks = Math.floor((limit - singles) / size);
  const tail = limit - blocks * size;
  return {
    size,
    /** How many shares the window has. */
    count: blocks + tail,
    /** The request numbers (1-based, inclusive) share `k` admits. */
    range(k: number): [number, number] {
      if (k < blocks) return [k * size + 1, (k + 1) * size];
      const n = blocks * size + (k - blocks) + 1;
      return [n, n];
    },
  };
}

interface Bucket {
  /** Start of the window this state belongs to. */
  window: number;
  /** The share to try next (every lower one is known to be taken). */
  nextShare: number;
  /** Request numbers of the share this instance holds that are not used yet: next..last. */
  next: number;
  last: number;
  /** Units taken and given back (see SharedBudget.giveBack), used before any new number. */
  returned: number;
  /** Every share of the window is taken. */
  exhausted: boolean;
  /** The claim of a share in flight; other requests of the bucket wait for it. */
  claiming: Promise<void> | null;
}

/** One unit taken from a budget: its number in the window (1-based), or null when the budget is spent. */
export interface Take {
  count: number | null;
  /** Start of the window (ms) it was taken in. */
  window: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

/**
 * A budget of `limit` units per key and window, shared by every instance, that never admits more than
 * `limit` in a window however many instances and requests in flight take from it. The window's budget
 * is cut into numbered shares (see shareLayout). An instance admits units from a share it owns, counted
 * in memory; when it runs out it claims the next free share by inserting its unique id
 * (`<prefix>:<key>:<window>:s<n>`). An insert is atomic on FerretDB 1.24 and MongoDB alike (an `$inc`
 * is not on FerretDB, which let two instances at 300/h admit 313 and 340), and each share is owned by
 * one instance, so all instances together admit at most the limit. What a share's owner leaves unused
 * is lost to the others: at most one block per instance, about 1% of the limit. Far from the limit one
 * insert admits a block of units (and every 8th also updates the hint of where the free shares start);
 * the last 10% cost one insert each. Deciding costs no database round trip while the instance holds units, and
 * none once it knows the budget is spent.
 */
export class SharedBudget {
  readonly #repo: RateLimitRepository;
  readonly #prefix: string;
  readonly #windowMs: number;
  readonly #layout: ReturnType<typeof shareLayout>;
  readonly #buckets = new Map<string, Bucket>();

  constructor(repo: RateLimitRepository, limit: number, windowSeconds: number, prefix: string) {
    this.#repo = repo;
    this.#prefix = prefix;
    this.#windowMs = windowSeconds * 1000;
    this.#layout = shareLayout(limit);
  }

  /** Takes one unit of `key`'s budget in the current window. */
  async take(key: string, now = Date.now()): Promise<Take> {
    const bucket = this.#bucket(key, now);
    const count = await this.#admit(key, bucket);
    return { count, window: bucket.window, resetSeconds: Math.max(1, Math.ceil((bucket.window + this.#windowMs - now) / 1000)) };
  }

  /**
   * Gives back a unit taken in `window` and not used after all (what it admitted did not happen): the
   * next take of the key on this instance uses it. In memory only: it returns to this instance's
   * share, so the instances together still admit at most the limit. Nothing once the window is over.
   */
  giveBack(key: string, window: number): void {
    const bucket = this.#buckets.get(key);
    if (bucket && bucket.window === window) bucket.returned += 1;
  }

  /** Seconds until the window ends if this instance knows `key`'s budget is spent in it; undefined if not. */
  spentFor(key: string, now = Date.now()): number | undefined {
    const bucket = this.#buckets.get(key);
    const window = Math.floor(now / this.#windowMs) * this.#windowMs;
    if (!bucket || bucket.window !== window || !bucket.exhausted || bucket.returned > 0 || bucket.next <= bucket.last) return undefined;
    return Math.max(1, Math.ceil((window + this.#windowMs - now) / 1000));
  }

  #bucket(key: string, now: number): Bucket {
    const window = Math.floor(now / this.#windowMs) * this.#windowMs;
    let bucket = this.#buckets.get(key);
    if (!bucket || bucket.window !== window) {
      bucket = { window, nextShare: 0, next: 1, last: 0, returned: 0, exhausted: false, claiming: null };
      this.#buckets.set(key, bucket);
      // Forget finished windows of idle keys.
      if (this.#buckets.size > 10_000) for (const [k, b] of this.#buckets) if (b.window !== window) this.#buckets.delete(k);
    }
    return bucket;
  }

  async #claim(key: string, bucket: Bucket): Promise<void> {
    const counter = `${this.#prefix}:${key}:${bucket.window}`;
    const expiresAt = new Date(bucket.window + this.#windowMs);
    let misses = 0;
    for (let k = bucket.nextShare; k < this.#layout.count; ) {
      if (await this.#repo.claimShare(counter, k, expiresAt)) {
        [bucket.next, bucket.last] = this.#layout.range(k);
        bucket.nextShare = k + 1;
        if ((k + 1) % HINT_EVERY === 0) void this.#repo.raiseShareHint(counter, k + 1, expiresAt).catch(() => undefined);
        return;
      }
      // Taken by another instance: skip ahead to where the shares are known to be taken.
      k = ++misses % 8 === 1 ? Math.max(k + 1, await this.#repo.shareHint(counter)) : k + 1;
      bucket.nextShare = k;
    }
    bucket.exhausted = true;
  }

  /** The unit's number in the window (1-based), or null when the budget is used up. */
  async #admit(key: string, bucket: Bucket): Promise<number | null> {
    for (;;) {
      if (bucket.returned > 0) {
        bucket.returned -= 1;
        // A unit given back stands for a number admitted before.
        return Math.max(1, bucket.next - 1);
      }
      if (bucket.next <= bucket.last) return bucket.next++;
      if (bucket.exhausted) return null;
      bucket.claiming ??= this.#claim(key, bucket).finally(() => (bucket.claiming = null));
      await bucket.claiming;
    }
  }
}

