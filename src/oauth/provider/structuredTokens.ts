import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config/index.ts';
import { publicJwks, type KeyMaterial } from '../../keys/keystore.ts';
import { revokedClientKey, revokedTokenKey, revokedUserKey, type RevokedGrantRepository } from '../../repositories/revokedGrants.ts';
import { refuseStructuredTokens, replaceStructuredTokenRefusal, replaceTokenFind, replaceUserinfoAudienceCheck } from './internals.ts';

/*
 * RFC 7662 introspection and RFC 7009 revocation of our own JWT access tokens (RFC 9068). oidc-provider
 * never stores JWT access tokens, so it refuses them at both endpoints (`unsupported_token_type`). Here
 * its endpoints are kept as they are (its client authentication, its "own tokens only" policies, its
 * responses), with two changes: the step that refuses every JWT lets through the ones typed `at+jwt`,
 * and finding an access token or client_credentials token by value verifies such a JWT against our
 * signing keys and the revocation list instead of reading storage. Revoking one then lists its `jti`
 * (src/repositories/oidc/adapter.ts `onAccessTokenRevoked`), which /v1 refuses.
 *
 * Userinfo (OpenID Connect): oidc-provider serves it only to access tokens without an audience, and with
 * resource indicators every access token of ours has one (`/v1`). Rather than a second token for a
 * second audience, userinfo accepts the /v1 access token when it carries `openid` (the OpenID scopes
 * are granted to /v1 as well, ./resources.ts); its own checks stay (a DPoP-bound token needs its
 * proof there too, `cnf.jkt` is passed on below).
 */

interface AccessTokenClaims extends JWTPayload {
  client_id?: unknown;
  scope?: unknown;
  gid?: unknown;
  cnf?: { jkt?: unknown };
}

const isAccessTokenJwt = (token: unknown): token is string => {
  if (typeof token !== 'string') return false;
  try {
    return decodeProtectedHeader(token).typ === 'at+jwt';
  } catch {
    return false;
  }
};

async function allowAccessTokenJwts(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  if (isAccessTokenJwt((ctx.oidc.params as { token?: unknown } | undefined)?.token)) return await next();
  return await refuseStructuredTokens(ctx, next);
}

/** Each provider's API audience (several providers may share this process: tests start two servers). */
const apiAudiences = new WeakMap<object, string>();

function validateApiAudience(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  const { aud } = ctx.oidc.entities.AccessToken as { aud?: unknown };
  if (aud === undefined || aud !== apiAudiences.get(ctx.oidc.provider)) throw new errors.InvalidToken('token audience prevents accessing the userinfo endpoint');
  return next();
}

/**
 * Must run before `new Provider(...)` (the endpoints' steps are assembled there); then
 * `installAccessTokenLookup` on the provider. At introspection and revocation, allowAccessTokenJwts takes
 * the place of the JWT refusal; at userinfo, the "no audience" rule becomes "the /v1 audience"
 * (idempotent, per process).
 */
export function prepareStructuredTokenEndpoints(): void {
  replaceStructuredTokenRefusal(allowAccessTokenJwts);
  replaceUserinfoAudienceCheck(validateApiAudience);
}

export function installAccessTokenLookup(provider: Provider, deps: { config: Config; keys: KeyMaterial; revokedGrants: RevokedGrantRepository }): void {
  apiAudiences.set(provider, deps.config.apiAudience);
  const jwks = createLocalJWKSet(publicJwks(deps.keys));
  const verify = async (value: string): Promise<AccessTokenClaims | undefined> => {
    try {
      const { payload } = await jwtVerify<AccessTokenClaims>(value, jwks, {
        issuer: deps.config.issuer,
        audience: deps.config.apiAudience,
        typ: 'at+jwt',
        algorithms: ['RS256'],
        requiredClaims: ['exp', 'iat', 'jti', 'client_id'],
      });
      if (typeof payload.client_id !== 'string' || typeof payload.jti !== 'string') return undefined;
      const keys = [revokedTokenKey(payload.jti), revokedClientKey(payload.client_id)];
      if (typeof payload.gid === 'string') keys.push(payload.gid);
      if (typeof payload.sub === 'string' && payload.sub !== payload.client_id) keys.push(revokedUserKey(payload.sub));
      return (await deps.revokedGrants.anyListed(keys)) ? undefined : payload;
    } catch {
      return undefined; // expired, badly signed, not ours: not active
    }
  };
  const common = (claims: AccessTokenClaims) => ({
    jti: claims.jti,
    iat: claims.iat,
    exp: claims.exp,
    clientId: claims.client_id,
    aud: claims.aud,
    ...(typeof claims.cnf?.jkt === 'string' ? { jkt: claims.cnf.jkt } : {}),
    ...(typeof claims.scope === 'string' && claims.scope ? { scope: claims.scope } : {}),
  });

  replaceTokenFind(provider, 'AccessToken', async (value, options, stored) => {
    if (!isAccessTokenJwt(value)) return await stored.find(value, options);
    const claims = await verify(value);
    // A user's token: it names the user (`sub`) and the grant it came from (`gid`).
    if (!claims || typeof claims.gid !== 'string' || typeof claims.sub !== 'string') return undefined;
    return stored.instantiate({ ...common(claims), kind: 'AccessToken', accountId: claims.sub, grantId: claims.gid });
  });

  replaceTokenFind(provider, 'ClientCredentials', async (value, options, stored) => {
    if (!isAccessTokenJwt(value)) return await stored.find(value, options);
    const claims = await verify(value);
    if (!claims || claims.gid !== undefined) return undefined;
    return stored.instantiate({ ...common(claims), kind: 'ClientCredentials' });
  });
}
