import type { Middleware } from 'koa';
import type { Changes } from '../lib/changes.ts';
import type { Logger } from '../logger.ts';

/**
 * CORS for browser apps (SPAs) on other origins. One origin rule for both halves of the service:
 * an origin may call from a browser when it is in the configured `corsOrigins`, or when it is the
 * origin of a registered client's redirect URI. /v1 does not know which client is calling before it
 * authenticates, so there any registered client's origin counts; the OAuth endpoints know the client
 * (oidc-provider's `clientBasedCORS` hook) and accept that client's own redirect origins only.
 * Credentials never cross origins: no `Access-Control-Allow-Credentials`, and cookies are ignored on
 * cross-origin /v1 requests, so only a bearer token (or API key) can authenticate them.
 */

export const CORS_ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'DPoP', 'Idempotency-Key', 'X-Request-Id', 'Last-Event-ID'];
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Link', 'Location', 'Retry-After', 'DPoP-Nonce', 'WWW-Authenticate'];
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** `scheme://host[:port]` of an http(s) URL; undefined for anything else (custom schemes, junk). */
export function originOf(uri: string): string | undefined {
  const url = URL.parse(uri);
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.origin : undefined;
}

/** The rule for the OAuth endpoints: a configured origin, or one of this client's redirect origins. */
export function clientMayCallFrom(configured: ReadonlySet<string>, origin: string, redirectUris: readonly string[] | undefined): boolean {
  if (!origin || origin === 'null') return false;
  return configured.has(origin) || (redirectUris ?? []).some((uri) => originOf(uri) === origin);
}

export interface CorsOriginsOptions {
  configured: readonly string[];
  /** Every registered redirect URI (read from the database). */
  loadRedirectUris: () => Promise<string[]>;
  /** A client created or deleted in this process reloads the cache at once. */
  changes: Changes;
  refreshSeconds: number;
  logger: Logger;
}

/**
 * The allow-list of /v1: configured origins plus the origins of every registered client's redirect
 * URIs, cached and reloaded (one read at a time). A change made in this process is awaited: the next
 * request sees it. Otherwise the set is re-read once it is older than `refreshSeconds` (other
 * instances' changes), in the background: the read is of every client (about 3 s per 100,000 on the
 * embedded database), and the request that finds the set old is answered from it rather than waiting.
 */
export class CorsOrigins {
  readonly configured: ReadonlySet<string>;
  readonly #options: CorsOriginsOptions;
  #clientOrigins = new Set<string>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loadedChanges = -1;
  #changeCount = 0;
  #loading: Promise<void> | undefined;

  constructor(options: CorsOriginsOptions) {
    this.#options = options;
    options.changes.on('oauthClientsChanged', () => void (this.#changeCount += 1));
    this.configured = new Set(options.configured.map((o) => originOf(o) ?? o));
  }

  /** Never read, or changed here since the last read: the answer must wait for a read. */
  #behind(): boolean {
    return this.#loadedChanges !== this.#changeCount;
  }

  #old(): boolean {
    return Date.now() - this.#loadedAt > this.#options.refreshSeconds * 1000;
  }

  #reload(): Promise<void> {
    return (this.#loading ??= this.#load().finally(() => (this.#loading = undefined)));
  }

  async #load(): Promise<void> {
    const changes = this.#changeCount;
    try {
      const origins = (await this.#options.loadRedirectUris()).map(originOf).filter((o): o is string => o !== undefined);
      this.#clientOrigins = new Set(origins);
    } catch (err) {
      // Keep the last known set; try again at the next interval.
      this.#options.logger.warn({ err }, 'could not reload the CORS origins of registered clients');
    }
    this.#loadedAt = Date.now();
    this.#loadedChanges = changes;
  }

  async allows(origin: string): Promise<boolean> {
    if (!origin || origin === 'null') return false;
    if (this.configured.has(origin)) return true;
    // At most two rounds: one in flight that began before a change, then one that sees it.
    for (let round = 0; round < 2 && this.#behind(); round++) await this.#reload();
    if (this.#old()) void this.#reload();
    return this.#clientOrigins.has(origin);
  }
}

/** The paths a browser app calls on the API side. */
const isApiPath = (path: string) => path === '/v1' || path.startsWith('/v1/') || path === '/.well-known/oauth-protected-resource/v1';

/**
 * CORS for /v1 (and its RFC 9728 metadata). Preflights are answered here, before authentication and
 * rate limiting; requests from the service's own origin (the dashboard) are left as they are.
 */
export function apiCors({ origins, ownOrigin }: { origins: CorsOrigins; ownOrigin: string }): Middleware {
  const allowMethods = CORS_ALLOWED_METHODS.join(', ');
  const allowHeaders = CORS_ALLOWED_HEADERS.join(', ');
  const exposeHeaders = CORS_EXPOSED_HEADERS.join(', ');
  return async (ctx, next) => {
    if (!isApiPath(ctx.path)) return await next();
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (!origin || origin === ownOrigin) return await next();

    // Cross-origin: a cookie (dashboard session) never authenticates it.
    delete ctx.request.headers.cookie;
    const allowed = await origins.allows(origin);
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.status = 204;
      if (allowed) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Access-Control-Allow-Methods', allowMethods);
        ctx.set('Access-Control-Allow-Headers', allowHeaders);
        ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      return;
    }
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', exposeHeaders);
    }
    await next();
  };
}
