import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config/index.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { Logger } from '../../logger.ts';
import type { ProviderStorage } from './storage.ts';
import { TokenBudgets } from '../tokenBudgets.ts';
import { currentRequest } from './currentRequest.ts';

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

/** Counts the answer of a token request once it is decided: a counter that cannot be written is logged, never an error. */
async function count(budgets: TokenBudgets, ctx: Context, logger: Logger): Promise<void> {
  const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
  const named = ctx.state.tokenClientId as string | undefined;
  const counted =
    ctx.status === 200 && oidc?.client
      ? budgets.succeeded(oidc.client.clientId)
      : ctx.status >= 400 && ctx.status < 500 && ctx.status !== 429
        ? budgets.failed(ctx.ip, named)
        : undefined;
  await counted?.catch((err: unknown) => logger.warn({ err, request_id: ctx.state.requestId }, 'token budget not counted'));
}

/**
 * Token endpoint budgets (../tokenBudgets.ts): failures per source and per (client, source), counted
 * when the answer is a 4xx; tokens issued per client (docs/product.md §6: 600 a minute), counted on
 * success. The client-related budgets are checked once the client is named (after the provider parsed
 * the body), so the refusal is the provider's own OAuth error (429 with Retry-After).
 */
export function enforceTokenBudgets(provider: Provider, repos: Pick<ProviderStorage, 'rateLimits'>, config: Config, logger: Logger, metrics: Metrics): void {
  const budgets = new TokenBudgets(repos.rateLimits, config);
  provider.use(async (ctx, next) => {
    const isToken = ctx.method === 'POST' && ctx.path === '/token';
    const sourceRetry = isToken ? budgets.sourceRefusal(ctx.ip) : undefined;
    if (sourceRetry !== undefined) {
      // Spent before anything is read: refused at once, whatever the request names.
      const error = refuse(ctx, sourceRetry, metrics);
      ctx.status = 429;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error: error.message, error_description: error.error_description };
      return;
    }
    await next();
    if (isToken) await count(budgets, ctx, logger);
  });
  const baseFind = provider.Client.find.bind(provider.Client);
  provider.Client.find = async (id: string) => {
    const ctx = currentRequest();
    if (ctx?.oidc?.route === 'token') {
      ctx.state.tokenClientId ??= id;
      const retryAfter = budgets.clientRefusal(ctx.ip, id);
      if (retryAfter !== undefined) throw refuse(ctx, retryAfter, metrics);
    }
    return await baseFind(id);
  };
}
