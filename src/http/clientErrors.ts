import type { Middleware } from 'koa';
import { html } from '../lib/html.ts';

const TITLES: Record<number, string> = { 400: 'Bad request', 413: 'Request too large', 415: 'Unsupported request' };

/**
 * The pages outside the JSON error handler (login and consent, the dashboard, setup links) parse their
 * forms with koa-body, which throws a 4xx error of its own (413 for a form over its limit, 400 for one it
 * cannot read, 415). Such an error is the client's mistake: it is answered here with its status (a short
 * page for a browser, the JSON error body otherwise), so it is neither logged as an unhandled error with
 * a stack nor recorded in the access log under another status. Anything else passes on unchanged.
 */
export function clientErrors(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const { status, expose } = err as { status?: unknown; expose?: unknown };
      if (typeof status !== 'number' || status < 400 || status >= 500 || expose !== true || ctx.headerSent) throw err;
      const message = status === 413 ? 'The request body is too large.' : (err as Error).message;
      ctx.status = status;
      ctx.set('Cache-Control', 'no-store');
      if (ctx.accepts('json', 'html') === 'html') {
        const title = TITLES[status] ?? 'Request refused';
        ctx.type = 'html';
        ctx.body = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/assets/slipway.css"></head><body><main><h1>${title}</h1><p>${message}</p></main></body></html>`.value;
      } else {
        const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
        ctx.body = { error: { code, message, status, request_id: ctx.state.requestId as string } };
      }
      ctx.state.log?.info({ status, reason: (err as Error).message }, 'request refused');
    }
  };
}
