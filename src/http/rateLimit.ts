import type { Context } from 'koa';
import { systemClock, type Clock } from '../lib/clock.ts';
import { rateLimited } from '../errors.ts';
import { sourceKey } from './clientAddress.ts';
import type { Metrics } from './metrics.ts';
import type { RateLimitRepository } from '../repositories/rateLimits.ts';
import { SharedBudget } from '../repositories/sharedBudget.ts';

const WINDOW_SECONDS = 3600;

/** Counts one /v1 request against a bucket and answers whether it may proceed. */
export type ApiRateLimiter = (ctx: Context, bucket: string) => Promise<void>;

/**
 * docs/product.md §6: `limitPerHour` requests per credential per hour, shared by every instance (a
 * SharedBudget). Sets RateLimit-Limit / -Remaining / -Reset on the response; over the limit → 429
 * `rate_limited` with Retry-After.
 */
export function createApiRateLimiter(
  repo: RateLimitRepository,
  limitPerHour: number,
  metrics: Pick<Metrics, 'rateLimited'>,
  options: { prefix?: string; what?: string; headers?: boolean; clock?: Clock } = {},
): ApiRateLimiter {
  const { prefix = 'api', what = 'Rate limit', headers = true, clock = systemClock } = options;
  const budget = new SharedBudget(repo, limitPerHour, WINDOW_SECONDS, prefix);

  return async (ctx, key) => {
    const taken = await budget.take(key, clock.now());
    const count = taken.count ?? limitPerHour + 1;
    if (headers) {
      ctx.set('RateLimit-Limit', String(limitPerHour));
      ctx.set('RateLimit-Remaining', String(Math.max(0, limitPerHour - count)));
      ctx.set('RateLimit-Reset', String(taken.resetSeconds));
      ctx.state.rateCounted = true;
    }
    if (count > limitPerHour) {
      metrics.rateLimited('api');
      throw rateLimited(taken.resetSeconds, what);
    }
  };
}

/**
 * The account request budget: every /v1 request of an account's credentials together (API keys,
 * tokens, sessions), per hour, shared by every instance, counted after the credential's own limit.
 * Over it → 429 `rate_limited` naming the account request budget, with Retry-After; the RateLimit-*
 * headers stay those of the credential.
 */
export const createAccountRateLimiter = (repo: RateLimitRepository, limitPerHour: number, metrics: Pick<Metrics, 'rateLimited'>, clock: Clock = systemClock): ApiRateLimiter =>
  createApiRateLimiter(repo, limitPerHour, metrics, { prefix: 'acct', what: 'Account request budget', headers: false, clock });

/** The bucket of a request that presents no usable credential: its source (IPv6 by /64). */
export const anonymousBucket = (ctx: Context) => `ip:${sourceKey(ctx.ip)}`;
