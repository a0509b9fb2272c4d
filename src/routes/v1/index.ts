import type { Middleware } from 'koa';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import type { Authenticator } from '../../auth/authenticators.ts';
import { createAuthenticate } from '../../http/authenticate.ts';
import type { Config } from '../../config/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { methodNotAllowed, notFound } from '../../errors.ts';
import { ApiRouter } from '../../http/apiRouter.ts';
import type { IdempotentFactory } from '../../http/idempotency.ts';
import { addExamples } from '../../http/docsExamples.ts';
import { createApiRegistry, generateDocument } from '../../http/openapi.ts';
import { anonymousBucket, type ApiRateLimiter } from '../../http/rateLimit.ts';
import { registerAccountRoutes } from './accounts/index.ts';
import { registerApiKeyRoutes } from './apiKeys/index.ts';
import { registerConfigurationRoutes } from './configurations/index.ts';
import type { Services } from '../../services/index.ts';
import type { V1Deps } from './deps.ts';
import { registerDeploymentRoutes } from './deployments/index.ts';
import { registerEnvironmentRoutes } from './environments/index.ts';
import { registerEventRoutes } from './events/index.ts';
import { registerOAuthClientRoutes } from './oauthClients/index.ts';
import { registerProjectRoutes } from './projects/index.ts';
import { registerTrustPolicyRoutes } from './trustPolicies/index.ts';
import { registerUserRoutes } from './users/index.ts';
import { registerWebhookRoutes } from './webhooks/index.ts';

export interface V1Api {
  /** Handles every request under /v1 (and only those). */
  middleware: Middleware;
  /** The OpenAPI 3.1 document of every /v1 route. */
  document: OpenAPIObject;
}

/**
 * The /v1 API. Each resource module declares its routes on the ApiRouter (which also documents them);
 * add new resources next to the ones below.
 */
export interface V1ApiDeps {
  config: Config;
  services: Services;
  authenticators: Authenticator[];
  /** Requests per credential (and, for requests without one, per address) per hour, shared by every instance. */
  rateLimit: ApiRateLimiter;
  /** Requests per account per hour across its credentials. */
  accountRateLimit: ApiRateLimiter;
  /** `Idempotency-Key` on POST (built by the composition root on its own store). */
  idempotent: IdempotentFactory;
  /** The process's clock (src/lib/clock.ts). */
  clock: Clock;
}

export function createV1Api({ config, services, authenticators, rateLimit, accountRateLimit, idempotent, clock }: V1ApiDeps): V1Api {
  const registry = createApiRegistry(config);
  const api = new ApiRouter(registry, '/v1');
  const authenticate = createAuthenticate({ authenticators, rateLimit, accountRateLimit });
  const deps: V1Deps = { config, authenticate, idempotent, services, clock };

  registerProjectRoutes(api, deps);
  registerDeploymentRoutes(api, deps);
  registerEnvironmentRoutes(api, deps);
  registerConfigurationRoutes(api, deps);
  registerApiKeyRoutes(api, deps);
  registerUserRoutes(api, deps);
  registerAccountRoutes(api, deps);
  registerOAuthClientRoutes(api, deps);
  registerEventRoutes(api, deps);
  registerWebhookRoutes(api, deps);
  registerTrustPolicyRoutes(api, deps);

  /**
   * Around the routes: no caching of API responses; unknown paths → 404 and known paths with another
   * method → 405 with Allow, both in the JSON error shape and counted against the caller's IP (every
   * /v1 response carries RateLimit-* headers).
   */
  const boundary: Middleware = async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
    if (!ctx.state.rateCounted) await rateLimit(ctx, anonymousBucket(ctx));
    if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
      const allowed = ctx.response.get('Allow');
      throw methodNotAllowed(ctx.method, allowed ? allowed.split(/,\s*/) : []);
    }
    if (ctx.status === 404 && ctx.body === undefined) throw notFound('endpoint');
  };

  const routes = api.router.routes() as Middleware;
  const allowedMethods = api.router.allowedMethods() as Middleware;
  /**
   * A method the path's own route lacks → 405 (OPTIONS → 204), both with `Allow`, before any route
   * runs: a more general route (`/users/:user_id`) must not answer for `/users/me`.
   */
  const dispatch: Middleware = async (ctx, next) => {
    const allowed = api.allowedMethods(ctx.path);
    if (allowed && !allowed.includes(ctx.method)) {
      ctx.set('Allow', allowed.join(', '));
      ctx.status = ctx.method === 'OPTIONS' ? 204 : 405;
      return;
    }
    await routes(ctx, () => allowedMethods(ctx, next));
  };
  const middleware: Middleware = (ctx, next) => boundary(ctx, () => dispatch(ctx, next));
  return { middleware, document: addExamples(generateDocument(registry, config)) };
}
