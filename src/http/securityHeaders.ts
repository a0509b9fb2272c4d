import type { Middleware } from 'koa';

const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers for every response; pages also get a CSP that forbids framing and every script. (No
 * `form-action`: browsers apply it to the redirect back to the client after a form post.)
 */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!ctx.headerSent) {
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        if (ctx.response.is('html')) {
          ctx.set('Content-Security-Policy', PAGE_CSP);
          ctx.set('X-Frame-Options', 'DENY');
        }
      }
    }
  };
}
