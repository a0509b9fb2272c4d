import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config/index.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../logger.ts';
import type { ProviderStorage } from './storage.ts';
import { currentRequest } from './currentRequest.ts';
import { beforeClientFind, insertBeforeTokenHandler } from './internals.ts';
import { TokenBudgets } from './tokenBudgets.ts';
import { TOKEN_EXCHANGE_GRANT } from '../../domain/federation.ts';

class RateLimited extends errors.CustomOIDCProviderError {
  constructor(retryAfter: number) {
    super('rate_limited', `too many token requests; retry after ${retryAfter} seconds`);
    Object.assign(this, { status: 429, statusCode: 429 });
  }
}

function refuse(ctx: Context, retryAfter: number, metrics: Metrics): RateLimited {
  ctx.set('Retry-After', String(retryAfter));
  metrics.rateLimited('token');
  return new RateLimited(retryAfter);
}

/**
 * Counts a failed token request once it is decided: a counter that cannot be written is logged, never an
 * error. A device's poll answered `authorization_pending` is not a failure (RFC 8628 §3.5: it polls every
 * few seconds until the person answers); one that came too soon (`slow_down`) is.
 */
async function countFailure(budgets: TokenBudgets, ctx: Context, logger: Logger, now: number): Promise<void> {
  if (ctx.status < 400 || ctx.status >= 500 || ctx.status === 429) return;
  if ((ctx.body as { error?: unknown } | undefined)?.error === 'authorization_pending') return;
  await budgets.failed(ctx.ip, ctx.state.tokenClientId as string | undefined, now).catch((err: unknown) => logger.warn({ err, request_id: ctx.state.requestId }, 'token budget not counted'));
}

/** What claims a client's token before the grant handler runs, per provider (tests run several in one process). */
type Reserve = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>;
const reservers = new WeakMap<object, Reserve>();

/**
 * The step of the token endpoint that claims one of the client's tokens (./tokenBudgets.ts): after the
 * client authenticated and the grant type was checked, right before the grant handler issues anything.
 */
async function reserveIssuedToken(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  const reserve = reservers.get(ctx.oidc.provider);
  return reserve ? await reserve(ctx, next) : await next();
}

/**
 * Puts reserveIssuedToken before oidc-provider's grant handler in its token endpoint (idempotent, per
 * process). Runs before a provider is built: the provider takes the endpoint's steps when it is made.
 */
export function prepareTokenBudgets(): void {
  insertBeforeTokenHandler(reserveIssuedToken);
}

/**
 * Token endpoint budgets (./tokenBudgets.ts): failures per source and per (client, source), counted
 * when the answer is a 4xx; tokens issued per client (docs/product.md §6: 600 a minute), each claimed
 * before it is issued (reserveIssuedToken) and given back when the request fails. The client-related
 * budgets known to be spent are refused once the client is named (after the provider parsed the body),
 * so the refusal is the provider's own OAuth error (429 with Retry-After).
 */
export function enforceTokenBudgets(provider: Provider, repos: Pick<ProviderStorage, 'rateLimits'>, config: Config, logger: Logger, metrics: Metrics, clock: Clock): void {
  const budgets = new TokenBudgets(repos.rateLimits, config);
  provider.use(async (ctx, next) => {
    const isToken = ctx.method === 'POST' && ctx.path === '/token';
    const sourceRetry = isToken ? budgets.sourceRefusal(ctx.ip, clock.now()) : undefined;
    if (sourceRetry !== undefined) {
      // Spent before anything is read: refused at once, whatever the request names.
      const error = refuse(ctx, sourceRetry, metrics);
      ctx.status = 429;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error: error.message, error_description: error.error_description };
      return;
    }
    await next();
    if (isToken) await countFailure(budgets, ctx, logger, clock.now());
  });
  reservers.set(provider, async (ctx, next) => {
    // docs/product.md §13: the token exchange's built-in client is every CI's; its issued tokens are bounded
    // by the single use of each subject token, not by one shared per-client budget (failures still count).
    if (ctx.oidc.params?.grant_type === TOKEN_EXCHANGE_GRANT) return await next();
    const reservation = await budgets.reserve(ctx.oidc.client!.clientId, clock.now());
    if ('retryAfter' in reservation) throw refuse(ctx, reservation.retryAfter, metrics);
    try {
      await next();
    } catch (err) {
      reservation.release();
      throw err;
    }
    // The handler answers with the tokens, or throws: anything else issued nothing either.
    if (ctx.status !== 200) reservation.release();
  });
  beforeClientFind(provider, (id) => {
    const ctx = currentRequest();
    if (ctx?.oidc?.route !== 'token') return;
    ctx.state.tokenClientId ??= id;
    const retryAfter = budgets.clientRefusal(ctx.ip, id, clock.now());
    if (retryAfter !== undefined) throw refuse(ctx, retryAfter, metrics);
  });
}
