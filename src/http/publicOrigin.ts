import type { Middleware } from 'koa';

/**
 * Every absolute URL the app makes comes from `PUBLIC_URL`, never from the request: `Host`,
 * `X-Forwarded-Host`, `X-Forwarded-Proto` and an absolute-form request target are the client's writing,
 * and a URL built from them (oidc-provider builds discovery's `token_endpoint`, `jwks_uri`, … from
 * `ctx.href`) would send clients, and their secrets, wherever a forged header says, to every reader of
 * a shared cache. So the request's protocol, host and origin are pinned to `PUBLIC_URL` first thing in
 * the app; Koa derives `ctx.origin`, `ctx.href` and `ctx.secure` (secure cookies) from them.
 */
export function pinPublicOrigin(publicUrl: string): Middleware {
  const url = new URL(publicUrl);
  const protocol = url.protocol.slice(0, -1);
  const pinned: PropertyDescriptorMap = {
    protocol: { value: protocol, configurable: true },
    secure: { value: protocol === 'https', configurable: true },
    host: { value: url.host, configurable: true },
    hostname: { value: url.hostname, configurable: true },
    origin: { value: url.origin, configurable: true },
    href: {
      get(this: { originalUrl: string }) {
        return `${url.origin}${this.originalUrl}`;
      },
      configurable: true,
    },
  };
  const pinnedPrototypes = new WeakSet<object>();
  return async (ctx, next) => {
    // An absolute-form target (`GET http://evil.example/oauth/... HTTP/1.1`) keeps only its path and query.
    if (!ctx.url.startsWith('/') && ctx.url !== '*') {
      let target: URL | undefined;
      try {
        target = new URL(ctx.url);
      } catch {
        target = undefined;
      }
      const path = target ? `${target.pathname}${target.search}` : '/';
      ctx.req.url = path;
      ctx.originalUrl = path;
      ctx.request.originalUrl = path;
    }
    // Pinned once on the app's request prototype (every request of the app inherits them), not on each
    // request: own properties added to every request object cost each request their definition and
    // make every later property read of it slower.
    const proto = Object.getPrototypeOf(ctx.request) as object;
    if (!pinnedPrototypes.has(proto)) {
      Object.defineProperties(proto, pinned);
      pinnedPrototypes.add(proto);
    }
    await next();
  };
}
