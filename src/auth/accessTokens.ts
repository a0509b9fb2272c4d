import { systemClock, type Clock } from '../lib/clock.ts';
import { LRUCache } from 'lru-cache';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../config/index.ts';
import { invalidDpopToken, invalidToken } from '../errors.ts';
import { publicJwks, type KeyMaterial } from '../keys/keystore.ts';
import type { Repositories } from '../repositories/index.ts';
import { revokedClientKey, revokedTokenKey, revokedTrustPolicyKey, revokedUserKey } from '../repositories/revokedGrants.ts';
import { TOKEN_EXCHANGE_CLIENT_ID } from '../domain/federation.ts';
import { looksLikeJwt, type Authenticator } from './authenticators.ts';
import { capByRole, expandScopes, type Principal } from '../domain/principal.ts';
import type { RevokedGrantCache } from './revokedGrants.ts';
import type { DpopVerifier } from './dpop.ts';

/** Clock skew tolerated on `exp`/`iat`/`nbf`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Verified tokens remembered per instance; the oldest are dropped first. */
const VERIFIED_CACHE_MAX = 10_000;

interface AccessTokenClaims extends JWTPayload {
  client_id?: unknown;
  scope?: unknown;
  acct?: unknown;
  gid?: unknown;
  cnf?: unknown;
  /** Exchanged CI tokens (docs/product.md §13): the project, the trust policy, the environments (absent: all). */
  proj?: unknown;
  tp?: unknown;
  envs?: unknown;
}

export interface AccessTokenDeps {
  config: Config;
  keys: KeyMaterial;
  repos: Pick<Repositories, 'users' | 'oauthClients'>;
  revokedGrants: RevokedGrantCache;
  /** Checks the DPoP proof of a request made with a DPoP-bound token (src/auth/dpop.ts). */
  verifyDpop: DpopVerifier;
  /** `exp` is compared with it (src/lib/clock.ts); default the system clock. */
  clock?: Clock;
}

/**
 * OAuth access tokens (RFC 9068 JWTs) issued by our own authorization server, verified locally against
 * our public signing keys: signature (RS256), `typ: at+jwt`, `iss`, `aud`, `exp`. Then:
 * - user tokens (`sub`): the user is loaded (cached ≤ principalCacheSeconds) so a removed user is
 *   refused and the role is the current one; the grant must not be revoked (RevokedGrantCache);
 *   effective scopes = token scopes capped by the role.
 * - client_credentials tokens (`sub` = client_id, no grant): act as the client's account with the token's scopes.
 * Either way the client must still exist and belong to the token's account.
 * A token bound to a DPoP key (`cnf.jkt`, RFC 9449) is accepted only as `Authorization: DPoP` with a
 * valid proof of that key for this request; as Bearer it is refused. An unbound token sent as DPoP is
 * refused too: the scheme says which kind the client holds.
 */
export function createAccessTokenAuthenticator({ config, keys, repos, revokedGrants, verifyDpop, clock = systemClock }: AccessTokenDeps): Authenticator {
  const jwks = createLocalJWKSet(publicJwks(keys));
  // A token's claims never change once its signature checks out, so the RS256 verification is done once
  // per token, not once per request. Expiry is checked on every use, and revocation, the user and the
  // client are checked after this step as for a freshly verified token.
  const verified = new LRUCache<string, AccessTokenClaims>({ max: VERIFIED_CACHE_MAX });
  const verify = async (token: string): Promise<AccessTokenClaims> => {
    const known = verified.get(token);
    if (known) {
      if ((known.exp as number) + CLOCK_TOLERANCE_SECONDS > clock.now() / 1000) return known;
      verified.delete(token);
      throw invalidToken('The access token has expired.');
    }
    const { payload } = await jwtVerify<AccessTokenClaims>(token, jwks, {
      issuer: config.issuer,
      audience: config.apiAudience,
      typ: 'at+jwt',
      algorithms: ['RS256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: clock.date(),
      requiredClaims: ['exp', 'iat', 'client_id', 'acct'],
    });
    verified.set(token, payload);
    return payload;
  };

  return {
    name: 'access_token',
    accepts: looksLikeJwt,
    async authenticate(token, ctx, scheme, options = {}) {
      let claims: AccessTokenClaims;
      try {
        claims = await verify(token);
      } catch (err) {
        const refuse = scheme === 'dpop' ? invalidDpopToken : invalidToken;
        if (err instanceof joseErrors.JWTExpired) throw refuse('The access token has expired.');
        if (err instanceof joseErrors.JOSEError) throw refuse();
        throw err;
      }
      const jkt = boundKey(claims);
      if (jkt === undefined && scheme === 'dpop') throw invalidDpopToken('This access token is not bound to a DPoP key: send it as Authorization: Bearer.');
      if (jkt !== undefined) {
        if (scheme !== 'dpop') throw invalidDpopToken('This access token is bound to a DPoP key: send it as Authorization: DPoP <token> with a DPoP proof.');
        if (!options.recheck) await verifyDpop(ctx, token, jkt);
      }
      const { sub, client_id: clientId, scope = '', acct, gid, jti } = claims;
      if (typeof clientId !== 'string' || typeof scope !== 'string' || typeof acct !== 'string') throw invalidToken();
      if (clientId === TOKEN_EXCHANGE_CLIENT_ID) return await exchangedPrincipal(claims, scope, acct, revokedGrants);
      // Revoked on this instance: at once; elsewhere: within revocationRefreshSeconds. Covers the token
      // itself (RFC 7009), its grant, its user (removed) and its client (deleted), all from memory.
      const revocationKeys = [revokedClientKey(clientId)];
      if (typeof jti === 'string') revocationKeys.push(revokedTokenKey(jti));
      if (typeof gid === 'string') revocationKeys.push(gid);
      if (typeof sub === 'string' && sub !== clientId) revocationKeys.push(revokedUserKey(sub));
      if (await revokedGrants.isRevoked(...revocationKeys)) throw invalidToken('The access token has been revoked.');
      const client = await repos.oauthClients.findByIdCached(clientId);
      if (!client) throw invalidToken('The client this token was issued to no longer exists.');
      const granted = expandScopes(scope.split(' '));

      // RFC 9068 §2.2: a client_credentials token's `sub` is the client itself (oidc-provider sets it so);
      // user tokens carry the user id and the grant id.
      if (gid === undefined && (sub === undefined || sub === clientId)) {
        if (client.account_id !== acct) throw invalidToken();
        return { kind: 'client', id: clientId, accountId: acct, scopes: granted, credential: 'access_token', credentialId: clientId } satisfies Principal;
      }
      if (typeof sub !== 'string' || typeof gid !== 'string') throw invalidToken();
      const user = await repos.users.findByIdCached(sub);
      // The token acts in the one account its membership is in (`acct`), never in another of the person's.
      if (!user || user.account_id !== acct || user.status !== 'active') throw invalidToken('The user of this token no longer exists.');
      return {
        kind: 'user',
        id: sub,
        accountId: user.account_id,
        scopes: capByRole(granted, user.role),
        role: user.role,
        credential: 'access_token',
        credentialId: gid,
      } satisfies Principal;
    },
  };
}

/**
 * docs/product.md §13: a token exchanged for a CI token acts as its trust policy's project, like an API
 * key, with the policy's scopes (never admin) and environments. It ends when the policy is deleted.
 */
async function exchangedPrincipal(claims: AccessTokenClaims, scope: string, acct: string, revokedGrants: RevokedGrantCache): Promise<Principal> {
  const { proj, tp, envs, jti } = claims;
  if (typeof proj !== 'string' || typeof tp !== 'string' || typeof jti !== 'string') throw invalidToken();
  if (envs !== undefined && !(Array.isArray(envs) && envs.every((e) => typeof e === 'string'))) throw invalidToken();
  if (await revokedGrants.isRevoked(revokedTrustPolicyKey(tp), revokedTokenKey(jti))) throw invalidToken('The access token has been revoked.');
  const scopes = expandScopes(scope.split(' '));
  scopes.delete('admin');
  return { kind: 'federated', id: tp, accountId: acct, projectId: proj, environments: (envs as string[] | undefined) ?? null, scopes, credential: 'access_token', credentialId: jti };
}

/** The DPoP key thumbprint a token is bound to (`cnf.jkt`), if any. */
function boundKey(claims: AccessTokenClaims): string | undefined {
  const cnf = claims.cnf;
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  if (typeof jkt !== 'string' || !jkt) throw invalidToken('The access token is bound to a key this API does not support.');
  return jkt;
}
