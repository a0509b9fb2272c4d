import type { Context, Next } from 'koa';
import { sourceKey } from '../http/clientAddress.ts';
import type { Metrics } from '../http/metrics.ts';
import { clientOf } from '../http/requestContext.ts';
import type { Logger } from '../logger.ts';
import type { LoginService } from '../services/login.ts';
import { renderMessage } from './views.ts';

/** oidc-provider's verification page (`verification_uri`), under the /oauth mount. */
export const VERIFICATION_PATH = '/oauth/device';

interface DeviceVerificationDeps {
  /** Counts code submissions per source (src/services/login.ts `userCodeAttempt`). */
  login: Pick<LoginService, 'userCodeAttempt'>;
  logger: Logger;
  metrics: Metrics;
}

/**
 * In front of oidc-provider's device verification page (RFC 8628 §3.3, docs/product.md §12):
 * - GET with `user_code` (the device's `verification_uri_complete`) shows the code form filled in, for the
 *   person to compare and send, where oidc-provider would submit it for them with a script;
 * - every POST (a code typed, or its confirmation) from a source whose budget of code submissions is
 *   spent is refused with 429 and Retry-After before the provider looks any code up (§5.1: guessing is
 *   throttled per source; another source's code still goes through).
 */
export function deviceVerificationGate({ login, logger, metrics }: DeviceVerificationDeps) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== VERIFICATION_PATH) return await next();
    if (ctx.method === 'GET' && ctx.query.user_code !== undefined) {
      const { user_code: code, ...rest } = ctx.query;
      // Read by the page (src/oauth/provider/deviceFlow.ts), which keeps it only when it looks like a code.
      if (typeof code === 'string') ctx.state.userCodePrefill = code.slice(0, 32);
      ctx.query = rest;
      return await next();
    }
    if (ctx.method === 'POST') {
      const retryAfter = await login.userCodeAttempt(sourceKey(ctx.ip));
      if (retryAfter !== undefined) {
        metrics.rateLimited('device_code');
        logger.warn({ request_id: ctx.state.requestId, ...clientOf(ctx) }, 'device code submissions rate limited');
        ctx.status = 429;
        ctx.set('Retry-After', String(retryAfter));
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'html';
        ctx.body = renderMessage('Too many attempts', `Too many codes were tried from your network. Try again in ${retryAfter} seconds.`);
        return;
      }
    }
    await next();
  };
}
