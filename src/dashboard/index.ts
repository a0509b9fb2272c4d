import Router from '@koa/router';
import type { Middleware } from 'koa';
import { dashboardErrors, requireSession, verifyForm, type DashboardDeps } from './context.ts';
import { registerAccountPage } from './pages/account.ts';
import { registerApiKeyPages } from './pages/apiKeys.ts';
import { registerDeploymentPage } from './pages/deployment.ts';
import { registerEnvironmentPages } from './pages/environments.ts';
import { registerEventsPage } from './pages/events.ts';
import { registerOAuthAppPages } from './pages/oauthApps.ts';
import { registerProjectPage } from './pages/project.ts';
import { registerProjectPages } from './pages/projects.ts';
import { registerTrustedCiPages } from './pages/trustedCi.ts';
import { registerUserPages } from './pages/users.ts';
import { registerWebhookPages } from './pages/webhooks.ts';
import { PageRouter } from './pageRouter.ts';

export type { DashboardDeps } from './context.ts';

/**
 * The dashboard's pages (server-rendered HTML; sign-in, callback and logout are in auth.ts). Every page
 * needs a session; every unsafe request needs the session's CSRF token; errors are HTML pages. Handles
 * every path under /dashboard that auth.ts does not. Each page is a handler module in `pages/`
 * (routes declared on a PageRouter: scope, form parsing, the POST shape) and its markup in `views/`.
 */
export function createDashboard(deps: DashboardDeps): Middleware {
  const router = new Router({ prefix: '/dashboard' });
  router.use(requireSession(deps), verifyForm);

  router.get('/', (ctx) => {
    ctx.status = 302;
    ctx.redirect('/dashboard/projects');
  });
  const pages = new PageRouter(router, deps.config, deps.services.dashboardClient);
  for (const register of [
    registerProjectPages,
    registerProjectPage,
    registerDeploymentPage,
    registerEnvironmentPages,
    registerEventsPage,
    registerApiKeyPages,
    registerUserPages,
    registerOAuthAppPages,
    registerWebhookPages,
    registerTrustedCiPages,
    registerAccountPage,
  ])
    register(pages, deps);

  const routes = router.routes() as Middleware;
  const allowed = router.allowedMethods() as Middleware;
  const errors = dashboardErrors(deps.logger);
  return async (ctx, next) => {
    if (ctx.path !== '/dashboard' && !ctx.path.startsWith('/dashboard/')) return await next();
    await errors(ctx, () => routes(ctx, () => allowed(ctx, async () => undefined)));
  };
}
