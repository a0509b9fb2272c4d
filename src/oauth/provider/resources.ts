import { errors, type Configuration } from 'oidc-provider';
import { SCOPE_ORDER } from '../../domain/principal.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './lifetimes.ts';
import { OIDC_SCOPES, assertRequestedScopes } from './scopes.ts';

type ResourceIndicators = NonNullable<Configuration['features']>['resourceIndicators'];

/**
 * RFC 8707 resource indicators: one resource, the /v1 API (`audience`), asked for or not. Its access
 * tokens are RS256 JWTs (RFC 9068). The requested scopes are checked here (./scopes.ts).
 */
export function resourceIndicators(audience: string) {
  return {
    enabled: true,
    defaultResource: () => audience,
    useGrantedResource: () => true,
    getResourceServerInfo: (ctx, resourceIndicator, client) => {
      if (resourceIndicator !== audience) throw new errors.InvalidTarget();
      assertRequestedScopes(ctx, client.scope);
      // The OpenID scopes are granted to /v1 too, so that its access token carries `openid` and can
      // call userinfo; /v1 itself ignores them.
      return {
        scope: [...OIDC_SCOPES, ...SCOPE_ORDER].join(' '),
        audience,
        accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      };
    },
  } satisfies ResourceIndicators;
}
