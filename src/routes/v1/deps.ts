import type { Config } from '../../config/index.ts';
import type { ApiMiddleware } from '../../http/apiContext.ts';
import type { IdempotentFactory } from '../../http/idempotency.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Services } from '../../services/index.ts';

/** What every /v1 resource module receives to declare its routes. */
export interface V1Deps {
  config: Config;
  /** First step of every route: credential → principal, then the per-credential rate limit. */
  authenticate: ApiMiddleware;
  /**
   * `Idempotency-Key` support for POST routes; place it after `validate`. A route that creates a
   * resource passes `newResourceId` and hands `ctx.state.resourceId` to its service.
   */
  idempotent: IdempotentFactory;
  services: Services;
  /** The process's clock (src/lib/clock.ts): what a presented record's time-dependent status is judged by. */
  clock: Clock;
}
