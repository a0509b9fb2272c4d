import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { accessLineLogger, type Logger } from '../logger.ts';
import type { Metrics } from './metrics.ts';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Request id (honours a well-formed incoming `X-Request-Id`), one access-log line, and metrics. */
export function requestContext(logger: Logger, metrics: Metrics): Middleware {
  const access = accessLineLogger(logger);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    // The request's child logger is made when something logs through it; the access line below does not
    // need it (most requests log nothing else, and a child costs as much as the line).
    let log: Logger | undefined;
    Object.defineProperty(ctx.state, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (log ??= logger.child({ request_id: requestId })),
      set: (value: Logger) => {
        log = value;
      },
    });
    ctx.set('X-Request-Id', requestId);
    // An error that escapes every handler is answered by Koa after this line is written: log the status
    // Koa will send (the error's own 4xx, else 500), not the 404 the response still holds.
    let status: number | undefined;
    try {
      await next();
    } catch (err) {
      const own = (err as { status?: unknown; expose?: unknown }).status;
      status = typeof own === 'number' && own >= 400 && own < 600 ? own : 500;
      throw err;
    } finally {
      status ??= ctx.status;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(ctx.path, (ctx as { _matchedRoute?: string })._matchedRoute);
      metrics.observe(ctx.method, route, status, seconds);
      // Only the path is logged: query strings can carry authorization parameters.
      const line = { request_id: requestId, method: ctx.method, path: ctx.path, status, ms: Math.round(seconds * 1e4) / 10 };
      if (access.levelVal !== logger.levelVal) access.level = logger.level;
      if (ctx.path === '/healthz' || ctx.path === '/metrics') access.debug(line, 'request');
      else access.info(line, 'request');
    }
  };
}

/** A bounded set of route labels, so metrics cardinality does not grow with ids. */
export function routeLabel(path: string, matched: string | undefined): string {
  // A router's `use` (prefix middleware) reports its path as a regular expression: never a label.
  const route = matched && !/[()?|$^\\*+[\]]/.test(matched) ? matched : undefined;
  const oauth = path === '/oauth' || path.startsWith('/oauth/');
  // oidc-provider matches its routes without the mount prefix.
  if (route) return oauth && !route.startsWith('/oauth') ? `/oauth${route}` : route;
  if (path.startsWith('/oauth/interaction/')) return '/oauth/interaction/:uid';
  if (oauth) {
    const [, , segment] = path.split('/');
    return ['authorize', 'token', 'jwks', '.well-known', 'session'].includes(segment ?? '') ? `/oauth/${segment}` : '/oauth/other';
  }
  if (path.startsWith('/v1/')) return '/v1/unmatched';
  if (path === '/dashboard' || path.startsWith('/dashboard/')) return '/dashboard/other';
  return ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs'].includes(path) ? path : 'other';
}

/**
 * Who is on the other end, for authentication log lines: the client address (`ctx.ip`, set for every
 * request by http/clientAddress.ts from the proxy settings) and the user agent, bounded in length.
 */
export function clientOf(ctx: Pick<Context, 'ip' | 'get'>): { ip: string; user_agent: string | undefined } {
  const agent = ctx.get('User-Agent');
  return { ip: ctx.ip, user_agent: agent ? agent.slice(0, 256) : undefined };
}
