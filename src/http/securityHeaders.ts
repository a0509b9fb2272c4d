import type { Middleware } from 'koa';

const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Dashboard pages may run exactly one kind of script: same-origin files (/assets/dashboard.js, the
 * copy button, a deployment's log followed live). No inline script, no eval. Their forms only ever post
 * to the dashboard itself; the script connects only to this origin (the log's event stream on /v1).
 */
const DASHBOARD_CSP = [PAGE_CSP, "script-src 'self'", "connect-src 'self'", "form-action 'self'"].join('; ');

const isDashboard = (path: string) => path === '/dashboard' || path.startsWith('/dashboard/');

/**
 * Headers for every response; pages also get a CSP that forbids framing and every script (dashboard
 * pages: every script but our own files). (No `form-action` outside the dashboard: browsers apply it to
 * the redirect back to the client after a form post.) `Strict-Transport-Security` under an https PUBLIC_URL.
 */
export function securityHeaders({ publicUrl }: { publicUrl: string }): Middleware {
  // Under an https PUBLIC_URL browsers are told to use nothing else for a year (every subdomain too);
  // under http the header would mean nothing (and browsers ignore it there).
  const hsts = new URL(publicUrl).protocol === 'https:' ? 'max-age=31536000; includeSubDomains' : undefined;
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!ctx.headerSent) {
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        if (hsts) ctx.set('Strict-Transport-Security', hsts);
        if (ctx.response.is('html')) {
          ctx.set('Content-Security-Policy', isDashboard(ctx.path) ? DASHBOARD_CSP : PAGE_CSP);
          ctx.set('X-Frame-Options', 'DENY');
        }
      }
    }
  };
}
