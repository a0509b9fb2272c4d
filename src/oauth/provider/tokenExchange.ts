import type Provider from 'oidc-provider';
import { errors, type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';
import { ISSUED_TOKEN_TYPE, TOKEN_EXCHANGE_CLIENT_ID, TOKEN_EXCHANGE_GRANT } from '../../domain/federation.ts';
import { ExchangeRefused, type ExchangeDecision, type TokenExchangeService } from '../../services/tokenExchange.ts';
import { bindToDpopProof, insertBeforeTokenClientAuth, readDpopProof } from './internals.ts';

/** The grant's parameters (RFC 8693 §2.1); `resource` is refused, the audience is the project. */
const PARAMETERS = ['subject_token', 'subject_token_type', 'audience', 'scope', 'requested_token_type', 'actor_token', 'actor_token_type', 'resource'];

/**
 * The client every exchange is made as (docs/product.md §13): built in, no secret, this grant only. It
 * is the provider's one static client; tenants' clients come from the database.
 */
export const TOKEN_EXCHANGE_CLIENT: ClientMetadata = {
  client_id: TOKEN_EXCHANGE_CLIENT_ID,
  client_name: 'CI token exchange',
  token_endpoint_auth_method: 'none',
  grant_types: [TOKEN_EXCHANGE_GRANT],
  response_types: [],
  redirect_uris: [],
  scope: 'read write',
  // Slipway's own client metadata (./clients.ts): no first-party sign-in, and no account of its own (each
  // token names its policy's).
  first_party: false,
  account_id: '',
};

/** What an accepted exchange puts in the token it issues, per request (read by extraTokenClaims, ./accounts.ts). */
const decisions = new WeakMap<object, ExchangeDecision>();

/**
 * The claims a token issued by an exchange carries beyond oidc-provider's own: the account, the
 * project, the trust policy and, when limited, the environments (src/auth/accessTokens.ts reads them).
 * Undefined for any other token.
 */
export function exchangedTokenClaims(ctx: object | undefined): Record<string, unknown> | undefined {
  const decision = ctx ? decisions.get(ctx) : undefined;
  if (!decision) return undefined;
  const { policy } = decision;
  return { acct: policy.account_id, proj: policy.project_id, tp: policy._id, ...(policy.environments ? { envs: policy.environments } : {}) };
}

/**
 * RFC 8693 §2.1: no client authentication of any kind. A request of this grant that brings some is
 * refused; one without is made as the built-in client, so oidc-provider's client authentication
 * (method `none`) finds it.
 */
async function exchangeWithoutClient(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  const params = ctx.oidc.params as Record<string, unknown> | undefined;
  if (params?.grant_type === TOKEN_EXCHANGE_GRANT) {
    const presented = ctx.headers.authorization !== undefined || params.client_secret !== undefined || params.client_assertion !== undefined;
    if (presented || (params.client_id !== undefined && params.client_id !== TOKEN_EXCHANGE_CLIENT_ID)) {
      throw new errors.InvalidRequest('the token exchange takes no client authentication: send no client_id or credentials');
    }
    params.client_id = TOKEN_EXCHANGE_CLIENT_ID;
  }
  await next();
}

/** Puts exchangeWithoutClient before client authentication at the token endpoint (idempotent, per process, before a provider is built). */
export function prepareTokenExchange(): void {
  insertBeforeTokenClientAuth(exchangeWithoutClient);
}

function refusal(err: ExchangeRefused): Error {
  return new errors.CustomOIDCProviderError(err.error, err.message);
}

/**
 * The token exchange grant (docs/product.md §13) at the token endpoint: the decision is the
 * TokenExchangeService's; this issues the token as a JWT for /v1 (RFC 9068, like client_credentials:
 * the policy's scopes, its lifetime, bound to the DPoP key when a proof came with the request) and
 * records the exchange.
 */
export function installTokenExchange(provider: Provider, exchange: TokenExchangeService, apiAudience: string): void {
  const handler = async (ctx: KoaContextWithOIDC): Promise<void> => {
    const params = ctx.oidc.params as Record<string, unknown>;
    if (params.resource !== undefined) throw new errors.InvalidTarget('resource is not supported by the token exchange; name the project with audience');
    // The proof first: a request refused for it spends nothing of the subject token.
    const proof = await readDpopProof(provider, ctx);
    let decision: ExchangeDecision;
    try {
      decision = await exchange.decide({
        subjectToken: params.subject_token,
        subjectTokenType: params.subject_token_type,
        audience: params.audience,
        scope: params.scope,
        requestedTokenType: params.requested_token_type,
        actorToken: params.actor_token,
      });
    } catch (err) {
      if (err instanceof ExchangeRefused) throw refusal(err);
      throw err;
    }
    const scope = decision.scopes.join(' ');
    const token = new provider.ClientCredentials({ client: ctx.oidc.client!, scope, expiresIn: decision.ttlSeconds });
    token.resourceServer = { audience: apiAudience, scope, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } }, identifier: () => apiAudience } as unknown as typeof token.resourceServer;
    if (proof) await bindToDpopProof(provider, ctx, proof, token as unknown as { setThumbprint(prop: string, input: string): void });
    decisions.set(ctx, decision);
    ctx.oidc.entity('ClientCredentials', token);
    const value = await token.save();
    await exchange.recordExchanged(decision, (token as unknown as { jti?: string }).jti);
    ctx.body = { access_token: value, issued_token_type: ISSUED_TOKEN_TYPE, token_type: token.tokenType, expires_in: token.expiration, scope };
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler, PARAMETERS);
}
