import Koa from 'koa';
import mount from 'koa-mount';
import type Provider from 'oidc-provider';
import type { Container } from './container.ts';
import { createAssetsRouter } from './http/assets.ts';
import { resolveClientAddress } from './http/clientAddress.ts';
import { clientErrors } from './http/clientErrors.ts';
import { apiCors, CorsOrigins } from './http/cors.ts';
import { singleHeaders } from './http/edge.ts';
import { errorHandler } from './http/errorHandler.ts';
import { createIdempotent } from './http/idempotency.ts';
import { pinPublicOrigin } from './http/publicOrigin.ts';
import { createAccountRateLimiter, createApiRateLimiter } from './http/rateLimit.ts';
import { requestContext } from './http/requestContext.ts';
import { securityHeaders } from './http/securityHeaders.ts';
import { createDashboardAuthRouter } from './dashboard/auth.ts';
import { createDashboard } from './dashboard/index.ts';
import { createSetupPages } from './dashboard/setup.ts';
import { createInvitationPages } from './dashboard/invitation.ts';
import { createInteractionRouter } from './oauth/interactions.ts';
import { deviceVerificationGate } from './oauth/deviceVerification.ts';
import { createDocsRouter } from './routes/docs.ts';
import { createSystemRouter } from './routes/system.ts';
import { createV1Api } from './routes/v1/index.ts';

export interface AppDeps {
  /** Everything the process is made of (src/container.ts). */
  container: Container;
  /** The authorization server, mounted at /oauth. */
  provider: Provider;
  isShuttingDown: () => boolean;
}

/**
 * The one Koa app: system endpoints, the authorization server's pages, oidc-provider mounted at /oauth
 * (outside the JSON error handler, so its errors keep the OAuth format), then the JSON API.
 */
const CLIENT_WENT_AWAY = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

export function createApp(deps: AppDeps): Koa {
  const { provider, container } = deps;
  const { config, logger, repos, sessions, services, metrics } = container;
  // `X-Forwarded-*` is never read by Koa itself: the client address comes from the proxy settings
  // (http/clientAddress.ts), the scheme and host from PUBLIC_URL (http/publicOrigin.ts).
  const app = new Koa({ proxy: false });
  // The mounted provider signs its cookies through this app's cookie jar with the cookie keys.
  app.keys = container.keys.cookies;
  app.silent = true;
  // A reader that goes away mid-answer (an event stream closed, a download cut) is not a server error.
  app.on('error', (err: Error & { code?: string }) => {
    if (err.code && CLIENT_WENT_AWAY.has(err.code)) logger.debug({ err: { code: err.code } }, 'the client closed the connection during the answer');
    else logger.error({ err }, 'unhandled error');
  });

  app.use(resolveClientAddress(config));
  app.use(pinPublicOrigin(config.publicUrl));
  app.use(requestContext(logger, metrics));
  app.use(securityHeaders(config));
  app.use(clientErrors());
  // Browser apps on other origins (SPAs): /v1 preflights are answered here, before any credential check.
  const corsOrigins = new CorsOrigins({
    configured: config.corsOrigins,
    loadRedirectUris: () => repos.oauthClients.allRedirectUris(),
    changes: container.changes,
    refreshSeconds: config.corsRefreshSeconds,
    logger,
  });
  app.use(apiCors({ origins: corsOrigins, ownOrigin: new URL(config.publicUrl).origin }));
  app.use(singleHeaders());
  // The token endpoint, the hottest path, goes straight to the authorization server: none of the routers
  // and pages between here and its mount below answers /oauth/token (they answer /oauth/interaction/…,
  // /oauth/device and paths outside /oauth), and the provider answers it in the OAuth format either way.
  const oauth = mount('/oauth', provider as unknown as Koa);
  app.use(async (ctx, next) => (ctx.path === '/oauth/token' ? await oauth(ctx, next) : await next()));

  const system = createSystemRouter({ config, database: container.database, metrics, isShuttingDown: deps.isShuttingDown });
  app.use(system.routes());
  app.use(createAssetsRouter().routes());

  const interactions = createInteractionRouter({ provider, login: services.login, logger, metrics });
  app.use(interactions.routes());
  app.use(interactions.allowedMethods());
  // The device code page (RFC 8628): filled in from the device's link, code guesses throttled per source.
  app.use(deviceVerificationGate({ login: services.login, logger, metrics }));

  const dashboardAuth = createDashboardAuthRouter({ config, provider, services, sessions, logger });
  app.use(dashboardAuth.routes());
  app.use(dashboardAuth.allowedMethods());

  // The JSON API and the dashboard use the very same services (same rules in both).
  const v1 = createV1Api({
    config,
    services,
    authenticators: container.authenticators,
    rateLimit: createApiRateLimiter(repos.rateLimits, config.apiRateLimitPerHour, metrics, { clock: container.clock }),
    accountRateLimit: createAccountRateLimiter(repos.rateLimits, config.accountRequestsPerHour, metrics, container.clock),
    idempotent: createIdempotent(repos.idempotencyKeys, { waitMs: config.idempotencyWaitMs, takeoverMs: config.idempotencyTakeoverSeconds * 1000, clock: container.clock }),
    clock: container.clock,
  });
  // Setup and invitation links are opened by people without a session, so these pages sit before the dashboard's.
  app.use(createSetupPages({ config, services, logger }));
  app.use(createInvitationPages({ config, services, logger }));
  app.use(createDashboard({ config, services, sessions, logger }));

  // RFC 8414 §3: the metadata of issuer {base}/oauth also answers at the path-inserted well-known URL.
  app.use(async (ctx, next) => {
    if (ctx.path === '/.well-known/oauth-authorization-server/oauth') ctx.path = '/oauth/.well-known/openid-configuration';
    await next();
  });
  app.use(async (ctx, next) => {
    if (ctx.path === '/oauth' || ctx.path.startsWith('/oauth/')) return await oauth(ctx, next);
    return await next();
  });

  app.use(errorHandler());

  // The JSON API and its documentation, inside the JSON error handler; /v1 never reaches the provider.
  const docs = createDocsRouter(v1.document);
  app.use(docs.routes());
  app.use(async (ctx, next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) return await v1.middleware(ctx, next);
    return await next();
  });
  return app;
}
