import Router from '@koa/router';
import type { Config } from '../config/index.ts';
import { pingDatabase, type Database } from '../db/mongo.ts';
import type { Metrics } from '../http/metrics.ts';
import { metricsAuthorized, metricsExposure, metricsText } from '../http/metricsEndpoint.ts';
import { SCOPE_ORDER } from '../domain/principal.ts';
import { DPOP_ALGORITHMS } from '../errors.ts';

/** Endpoints outside /v1 that need no credentials. */
export function createSystemRouter({ config, database, metrics, isShuttingDown }: { config: Config; database: Database; metrics: Metrics; isShuttingDown: () => boolean }) {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });

  // Ready while the database answers, or is merely slow: a ping still unanswered after 2 s counts as
  // down only when the driver no longer holds the server for reachable (the same judgement as requests).
  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const ping = isShuttingDown() ? 'failed' : await pingDatabase(database.db);
    const check = ping === 'ok' ? 'ok' : ping === 'timeout' && database.reachable() ? 'slow' : 'unreachable';
    ctx.status = check === 'unreachable' ? 503 : 200;
    ctx.body = { status: check === 'unreachable' ? 'unavailable' : 'ok', checks: { database: check } };
  });

  // Only behind the metrics token here; with a separate listener (or neither setting), 404.
  router.get('/metrics', async (ctx, next) => {
    if (metricsExposure(config) !== 'token') return await next();
    ctx.set('Cache-Control', 'no-store');
    if (!metricsAuthorized(config, ctx.get('Authorization') || undefined)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer');
      ctx.body = { error: { code: 'unauthorized', message: 'A valid metrics token is required.', status: 401, request_id: ctx.state.requestId } };
      return;
    }
    const { contentType, body } = await metricsText(metrics);
    ctx.type = contentType;
    ctx.body = body;
  });

  // Nothing else lives at the root: a browser (or a newcomer's curl) is sent to the dashboard, which
  // asks for a sign-in. The address comes from PUBLIC_URL, as every Location does (docs/product.md §1).
  router.get('/', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`${config.publicUrl}/dashboard`);
  });

  // Browsers ask for it on every page; there is none, and an error would only be noise.
  router.get('/favicon.ico', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.status = 204;
  });

  // RFC 9728: how clients find the authorization server for /v1.
  router.get('/.well-known/oauth-protected-resource/v1', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      resource: config.apiAudience,
      authorization_servers: [config.issuer],
      scopes_supported: [...SCOPE_ORDER],
      bearer_methods_supported: ['header'],
      // RFC 9449 §5.1: /v1 verifies DPoP proofs of these algorithms for key-bound tokens; unbound ones stay Bearer.
      dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
      dpop_bound_access_tokens_required: false,
      resource_name: 'Slipway API v1',
      resource_documentation: `${config.publicUrl}/docs`,
    };
  });

  return router;
}
