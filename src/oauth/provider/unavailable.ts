import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { isDatabaseUnavailable, UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../db/unavailable.ts';

/** The OAuth error a client is given when the database cannot answer now (RFC 6749 §4.1.2.1's code). */
export const UNAVAILABLE_OAUTH_ERROR = { error: 'temporarily_unavailable', error_description: UNAVAILABLE_MESSAGE };

/**
 * oidc-provider answers any error it did not raise itself as 500 `server_error`. When the database could
 * not be reached or could not answer now (isDatabaseUnavailable), the answer is 503 with Retry-After
 * instead, as on /v1: the client may retry. Its error handler emits `server_error` after it has set the
 * response and before the response is sent, so the answer is corrected there; the HTML error page
 * (renderError) says the same through unavailableOut.
 */
export function answerUnavailableWith503(provider: Provider): void {
  (provider as unknown as NodeJS.EventEmitter).on('server_error', (ctx: KoaContextWithOIDC, err: unknown) => {
    if (!isDatabaseUnavailable(err)) return;
    ctx.status = 503;
    ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    if (!ctx.response.is('html')) ctx.body = { ...UNAVAILABLE_OAUTH_ERROR };
  });
}

/** What the browser's error page says for `error`: the unavailability message when the database is why. */
export function unavailableOut<T extends object>(out: T, error: unknown): T | typeof UNAVAILABLE_OAUTH_ERROR {
  return isDatabaseUnavailable(error) ? UNAVAILABLE_OAUTH_ERROR : out;
}
