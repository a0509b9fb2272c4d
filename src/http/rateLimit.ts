import type { Context } from 'koa';
import { rateLimited } from '../errors.ts';
import type { RateLimitRepository } from '../repositories/rateLimits.ts';

const WINDOW_SECONDS = 3600;

/** Counts one /v1 request against a bucket and answers whether it may proceed. */
export type ApiRateLimiter = (ctx: Context, bucket: string) => Promise<void>;

/**
 * PRODUCT §6: `limitPerHour` requests per credential per hour, counted in MongoDB so every instance
 * shares the count. Sets RateLimit-Limit / -Remaining / -Reset on the response; over the limit → 429
 * `rate_limited` with Retry-After.
 */
export function createApiRateLimiter(repo: RateLimitRepository, limitPerHour: number): ApiRateLimiter {
  return async (ctx, bucket) => {
    const result = await repo.hit(`api:${bucket}`, limitPerHour, WINDOW_SECONDS);
    ctx.set('RateLimit-Limit', String(result.limit));
    ctx.set('RateLimit-Remaining', String(result.remaining));
    ctx.set('RateLimit-Reset', String(result.resetSeconds));
    ctx.state.rateCounted = true;
    if (!result.allowed) throw rateLimited(result.resetSeconds);
  };
}

/** The bucket of a request that presents no usable credential. */
export const anonymousBucket = (ctx: Context) => `ip:${ctx.ip}`;
