import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../logger.ts';
import type { Html } from '../lib/html.ts';
import { dashboardErrors } from './context.ts';
import { renderPage } from './layout.ts';

/*
 * Pages opened from a one-time link by someone without a session (a setup link, an invitation): the
 * token is the credential. Their answers are never stored by a browser or proxy, and they sit before
 * the dashboard's session check, on their one path.
 */

/** A page of such a link: `no-store`, in the dashboard's layout. */
export function sendLinkPage(ctx: Context, status: number, title: string, body: Html): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderPage({ title, body });
}

/** The router's routes on `path` alone, with the dashboard's error pages; every other request goes on. */
export function mountLinkPage(path: string, router: Router, logger: Logger): Middleware {
  const routes = router.routes() as Middleware;
  const allowed = router.allowedMethods() as Middleware;
  const errors = dashboardErrors(logger);
  return async (ctx, next) => {
    if (ctx.path !== path) return await next();
    await errors(ctx, () => routes(ctx, () => allowed(ctx, async () => undefined)));
  };
}
