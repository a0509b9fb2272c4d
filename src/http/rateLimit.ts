import type { Context } from 'koa';
import { rateLimited } from '../errors.ts';
import { metrics } from './metrics.ts';
import type { RateLimitRepository } from '../repositories/rateLimits.ts';

const WINDOW_SECONDS = 3600;
/** Hits tallied in memory reach MongoDB at most this long after they happened. */
const FLUSH_MS = 250;

/** Counts one /v1 request against a bucket and answers whether it may proceed. */
export type ApiRateLimiter = (ctx: Context, bucket: string) => Promise<void>;

interface Bucket {
  /** Start of the window this state belongs to. */
  window: number;
  /** The shared count MongoDB reported last, and how much this instance had sent by then. */
  ackCount: number;
  ackSent: number;
  /** Hits this instance has sent to MongoDB in this window (acknowledged or in flight). */
  sent: number;
  /** Hits admitted here and not sent yet. */
  pending: number;
  synced: boolean;
  flushing: boolean;
}

/**
 * PRODUCT §6: `limitPerHour` requests per credential per hour, counted in MongoDB so every instance
 * shares the count. Sets RateLimit-Limit / -Remaining / -Reset on the response; over the limit → 429
 * `rate_limited` with Retry-After.
 *
 * While a credential is far from its limit, this instance admits its requests on the last count it
 * read plus its own tally and adds the tally to MongoDB every FLUSH_MS (one write for many requests,
 * not one per request: the read path costs no database write). The first request of a window, and
 * every request once the credential is within `margin` of the limit, are counted in MongoDB before
 * they are answered, so the limit itself is enforced on the shared count. Other instances' hits are
 * learnt at each flush: the only imprecision is what all instances admit within one FLUSH_MS while
 * still more than `margin` requests away from the limit.
 */
export function createApiRateLimiter(repo: RateLimitRepository, limitPerHour: number): ApiRateLimiter {
  const windowMs = WINDOW_SECONDS * 1000;
  const margin = Math.max(50, Math.ceil(limitPerHour / 20));
  const buckets = new Map<string, Bucket>();

  /** Adds `weight` hits to the shared counter; returns the count after them. */
  const send = async (key: string, bucket: Bucket, weight: number): Promise<number> => {
    const sentBefore = bucket.sent;
    bucket.sent += weight;
    let count: number;
    try {
      count = (await repo.hit(`api:${key}`, limitPerHour, WINDOW_SECONDS, bucket.window, weight)).count;
    } catch (err) {
      bucket.sent -= weight;
      bucket.synced = false;
      throw err;
    }
    // Batches of one counter are applied in the order they were sent; keep the newest answer.
    if (sentBefore + weight >= bucket.ackSent) {
      bucket.ackCount = count;
      bucket.ackSent = sentBefore + weight;
    }
    return count;
  };

  const flush = async (key: string, bucket: Bucket) => {
    bucket.flushing = false;
    if (bucket.pending === 0) return;
    const weight = bucket.pending;
    bucket.pending = 0;
    // Not counted this time: the tally waits for the next flush, and the next request is counted exactly.
    await send(key, bucket, weight).catch(() => (bucket.pending += weight));
  };

  return async (ctx, key) => {
    const now = Date.now();
    const window = Math.floor(now / windowMs) * windowMs;
    let bucket = buckets.get(key);
    if (!bucket || bucket.window !== window) {
      bucket = { window, ackCount: 0, ackSent: 0, sent: 0, pending: 0, synced: false, flushing: false };
      buckets.set(key, bucket);
      // Forget finished windows of idle credentials.
      if (buckets.size > 10_000) for (const [k, b] of buckets) if (b.window !== window) buckets.delete(k);
    }

    const estimate = bucket.ackCount + (bucket.sent - bucket.ackSent) + bucket.pending + 1;
    let count: number;
    if (!bucket.synced || estimate > limitPerHour - margin) {
      const weight = bucket.pending + 1;
      bucket.pending = 0;
      try {
        count = await send(key, bucket, weight);
      } catch (err) {
        bucket.pending += weight - 1;
        throw err;
      }
      bucket.synced = true;
    } else {
      bucket.pending++;
      count = estimate;
      if (!bucket.flushing) {
        bucket.flushing = true;
        const current = bucket;
        setTimeout(() => void flush(key, current), FLUSH_MS).unref();
      }
    }

    const resetSeconds = Math.max(1, Math.ceil((window + windowMs - now) / 1000));
    ctx.set('RateLimit-Limit', String(limitPerHour));
    ctx.set('RateLimit-Remaining', String(Math.max(0, limitPerHour - count)));
    ctx.set('RateLimit-Reset', String(resetSeconds));
    ctx.state.rateCounted = true;
    if (count > limitPerHour) {
      metrics.rateLimited('api');
      throw rateLimited(resetSeconds);
    }
  };
}

/** The bucket of a request that presents no usable credential. */
export const anonymousBucket = (ctx: Context) => `ip:${ctx.ip}`;
