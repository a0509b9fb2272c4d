import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { KNOWN_SCOPES } from './scopes.ts';

/**
 * Discovery tells the truth: the scopes a client can be granted, the claims an ID token or userinfo
 * can carry, and no claims parameter (not enabled).
 */
export function truthfulDiscovery(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if ((ctx as KoaContextWithOIDC).oidc?.route !== 'discovery' || !ctx.body || typeof ctx.body !== 'object') return;
    const body = ctx.body as Record<string, unknown>;
    if (Array.isArray(body.scopes_supported)) body.scopes_supported = body.scopes_supported.filter((s) => KNOWN_SCOPES.has(s as string));
    delete body.claims_parameter_supported;
  });
}
