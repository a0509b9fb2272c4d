import type { Middleware } from 'koa';
import { AppError, notFound } from '../errors.ts';
import { isDatabaseUnavailable, UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../db/unavailable.ts';

/**
 * Maps every error to the contract's JSON body `{error: {code, message, status, request_id}}`. Anything
 * not raised on purpose becomes `internal_error` (or `service_unavailable` with Retry-After when the database cannot be reached or cannot answer now: isDatabaseUnavailable)
 * with no internals shown.
 */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound('endpoint');
    } catch (err) {
      let error: AppError;
      if (err instanceof AppError) error = err;
      else if (isDatabaseUnavailable(err))
        error = new AppError(503, 'service_unavailable', UNAVAILABLE_MESSAGE, { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } });
      else {
        const status = (err as { status?: number }).status;
        const expose = (err as { expose?: boolean }).expose;
        if (status && status < 500 && expose) error = new AppError(status, status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request', (err as Error).message);
        else error = new AppError(500, 'internal_error', 'An unexpected error occurred.');
      }
      if (error.status >= 500) ctx.state.log?.error({ err }, 'request failed');
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
      ctx.body = {
        error: {
          code: error.code,
          message: error.message,
          status: error.status,
          request_id: ctx.state.requestId,
          ...(error.details ? { details: error.details } : {}),
        },
      };
    }
  };
}
