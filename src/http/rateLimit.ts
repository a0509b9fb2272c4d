import type { Context } from 'koa';
import { rateLimited } from '../errors.ts';
import { sourceKey } from './clientAddress.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimitRepository } from '../repositories/rateLimits.ts';

const WINDOW_SECONDS = 3600;

/** Counts one /v1 request against a bucket and answers whether it may proceed. */
export type ApiRateLimiter = (ctx: Context, bucket: string) => Promise<void>;

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
  /** Every share of the window is taken. */
  exhausted: boolean;
  /** The claim of a share in flight; other requests of the bucket wait for it. */
  claiming: Promise<void> | null;
}

/**
 * docs/product.md §6: `limitPerHour` requests per credential per hour, shared by every instance. Sets
 * RateLimit-Limit / -Remaining / -Reset on the response; over the limit → 429 `rate_limited` with
 * Retry-After.
 *
 * The window's budget is cut into numbered shares (see shareLayout). An instance admits requests from
 * a share it owns, counted in memory; when it runs out it claims the next free share by inserting its
 * unique id (`<credential>:<window>:s<n>`). An insert is atomic on FerretDB 1.24 and MongoDB alike (an
 * `$inc` is not on FerretDB, which let two instances at 300/h admit 313 and 340), and each share is
 * owned by one instance, so all instances together admit at most the limit. What a share's owner
 * leaves unused is lost to the others: at most one block per instance, about 1% of the limit.
 * Far from the limit one insert admits a block of requests; the last 10% cost one insert each.
 */
export function createApiRateLimiter(
  repo: RateLimitRepository,
  limitPerHour: number,
  metrics: Pick<Metrics, 'rateLimited'>,
  options: { prefix?: string; what?: string; headers?: boolean } = {},
): ApiRateLimiter {
  const { prefix = 'api', what = 'Rate limit', headers = true } = options;
  const windowMs = WINDOW_SECONDS * 1000;
  const layout = shareLayout(limitPerHour);
  const buckets = new Map<string, Bucket>();

  const claim = async (key: string, bucket: Bucket): Promise<void> => {
    const counter = `${prefix}:${key}:${bucket.window}`;
    const expiresAt = new Date(bucket.window + windowMs);
    let misses = 0;
    for (let k = bucket.nextShare; k < layout.count; ) {
      if (await repo.claimShare(counter, k, expiresAt)) {
        [bucket.next, bucket.last] = layout.range(k);
        bucket.nextShare = k + 1;
        void repo.raiseShareHint(counter, k + 1, expiresAt).catch(() => undefined);
        return;
      }
      // Taken by another instance: skip ahead to where the shares are known to be taken.
      k = ++misses % 8 === 1 ? Math.max(k + 1, await repo.shareHint(counter)) : k + 1;
      bucket.nextShare = k;
    }
    bucket.exhausted = true;
  };

  /** The request's number in the window (1-based), or null when the budget is used up. */
  const admit = async (key: string, bucket: Bucket): Promise<number | null> => {
    for (;;) {
      if (bucket.next <= bucket.last) return bucket.next++;
      if (bucket.exhausted) return null;
      bucket.claiming ??= claim(key, bucket).finally(() => (bucket.claiming = null));
      await bucket.claiming;
    }
  };

  return async (ctx, key) => {
    const now = Date.now();
    const window = Math.floor(now / windowMs) * windowMs;
    let bucket = buckets.get(key);
    if (!bucket || bucket.window !== window) {
      bucket = { window, nextShare: 0, next: 1, last: 0, exhausted: false, claiming: null };
      buckets.set(key, bucket);
      // Forget finished windows of idle credentials.
      if (buckets.size > 10_000) for (const [k, b] of buckets) if (b.window !== window) buckets.delete(k);
    }

    const count = (await admit(key, bucket)) ?? limitPerHour + 1;
    const resetSeconds = Math.max(1, Math.ceil((window + windowMs - now) / 1000));
    if (headers) {
      ctx.set('RateLimit-Limit', String(limitPerHour));
      ctx.set('RateLimit-Remaining', String(Math.max(0, limitPerHour - count)));
      ctx.set('RateLimit-Reset', String(resetSeconds));
      ctx.state.rateCounted = true;
    }
    if (count > limitPerHour) {
      metrics.rateLimited('api');
      throw rateLimited(resetSeconds, what);
    }
  };
}

/**
 * The account request budget: every /v1 request of an account's credentials together (API keys,
 * tokens, sessions), per hour, shared by every instance, counted after the credential's own limit.
 * Over it → 429 `rate_limited` naming the account request budget, with Retry-After; the RateLimit-*
 * headers stay those of the credential.
 */
export const createAccountRateLimiter = (repo: RateLimitRepository, limitPerHour: number, metrics: Pick<Metrics, 'rateLimited'>): ApiRateLimiter =>
  createApiRateLimiter(repo, limitPerHour, metrics, { prefix: 'acct', what: 'Account request budget', headers: false });

/** The bucket of a request that presents no usable credential: its source (IPv6 by /64). */
export const anonymousBucket = (ctx: Context) => `ip:${sourceKey(ctx.ip)}`;
