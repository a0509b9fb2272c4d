import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { Db } from 'mongodb';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config/index.ts';
import { behindProxy, proxyModel } from '../http/clientAddress.ts';
import { clientMayCallFrom } from '../http/cors.ts';
import type { Metrics } from '../http/metrics.ts';
import { clientOf } from '../http/requestContext.ts';
import { dpopNonceSecret, type KeyMaterial } from '../keys/keystore.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';
import { hashClientSecret } from '../services/oauthClients.ts';
import { SCOPE_ORDER } from '../domain/principal.ts';
import { createAdapterClass } from '../repositories/oidcStore.ts';
import { installAccessTokenLookup, prepareStructuredTokenEndpoints } from './structuredTokens.ts';
import { installSingleUseRefusals } from './singleUse.ts';
import { TokenBudgets } from './tokenBudgets.ts';
import { renderErrorPage, renderLogout, renderMessage } from './views.ts';
import { revokedTokenKey } from '../repositories/revokedGrants.ts';
import { DPOP_ALGORITHMS } from '../errors.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** OpenID Connect sign-in (who the user is); the API scopes (SCOPE_ORDER) say what the app may do in /v1. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;
const KNOWN_SCOPES = new Set<string>([...OIDC_SCOPES, 'offline_access', ...SCOPE_ORDER]);
/** What each token endpoint really accepts: public clients (`none`, client_id only) and HTTP Basic. */
const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic'] as const;

/** The request being handled by the provider, for hooks that oidc-provider calls without a context. */
const currentRequest = new AsyncLocalStorage<KoaContextWithOIDC>();

class RateLimited extends errors.CustomOIDCProviderError {
  constructor(retryAfter: number) {
    super('rate_limited', `too many token requests; retry after ${retryAfter} seconds`);
    Object.assign(this, { status: 429, statusCode: 429 });
  }
}

export interface ProviderDeps {
  config: Config;
  keys: KeyMaterial;
  repos: Repositories;
  db: Db;
  logger: Logger;
  /** The process's metrics handle: token responses, refresh-token reuse, token endpoint refusals. */
  metrics: Metrics;
}

/**
 * Requested scopes must all be known, and the API scopes among them must be allowed for the client.
 * oidc-provider passes unrecognised scopes through silently, so this is where they are refused: it runs
 * after the client and redirect URI are validated, so the error reaches the client the OAuth way.
 */
function assertRequestedScopes(ctx: KoaContextWithOIDC, clientScope: string | undefined): void {
  const requested = typeof ctx.oidc.params?.scope === 'string' ? ctx.oidc.params.scope.split(' ').filter(Boolean) : [];
  const unknown = requested.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) throw new errors.InvalidScope('requested scope is not supported', unknown.join(' '));
  const allowed = new Set((clientScope ?? SCOPE_ORDER.join(' ')).split(' '));
  const refused = requested.filter((s) => (SCOPE_ORDER as readonly string[]).includes(s) && !allowed.has(s));
  if (refused.length) throw new errors.InvalidScope('requested scope is not allowed for this client', refused.join(' '));
}

/**
 * OpenID Connect Core §3.3.2.11: `at_hash` in the ID token issued beside an access token, so the app can
 * tell the two belong together. oidc-provider adds it only to ID tokens from the authorization endpoint;
 * here the access token the token endpoint has just issued (in the same request) is remembered and
 * hashed into the ID token (IdToken hashes `at_hash` itself when it is set to the token's value).
 */
function installAccessTokenHash(provider: Provider): void {
  const issued = new WeakMap<object, string>();
  const accessToken = provider.AccessToken.prototype as unknown as { save(): Promise<string>; ctx?: object };
  const save = accessToken.save;
  accessToken.save = async function saveRemembered(this: { ctx?: object }) {
    const value = await save.call(this);
    const ctx = currentRequest.getStore();
    if (ctx && typeof value === 'string') issued.set(ctx, value);
    return value;
  };
  const idToken = provider.IdToken.prototype as unknown as { issue(options?: { use?: string }): Promise<string>; set(key: string, value: unknown): void; extra: Record<string, unknown>; ctx?: object };
  const issue = idToken.issue;
  idToken.issue = async function issueWithAtHash(this: typeof idToken, options) {
    const value = this.ctx ? issued.get(this.ctx) : undefined;
    if (options?.use === 'idtoken' && value && this.extra.at_hash === undefined) this.set('at_hash', value);
    return await issue.call(this, options);
  };
}

export function createProvider({ config, keys, repos, db, logger, metrics }: ProviderDeps): Provider {
  const audience = config.apiAudience;
  const corsOrigins = new Set(config.corsOrigins.map((o) => new URL(o).origin));
  const Adapter = createAdapterClass(db, repos.oauthClients, {
    onGrantRevoked: async (grantId) => {
      await repos.revokedGrants.add(grantId);
      logger.info({ grant_id: grantId }, 'grant revoked');
    },
    onAccessTokenRevoked: async (jti) => {
      await repos.revokedGrants.add(revokedTokenKey(jti));
      logger.info('access token revoked');
    },
    // Claims of single-use artifacts are kept while what they claim can still be presented.
    ttlSeconds: { AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS, RefreshToken: REFRESH_TOKEN_TTL_SECONDS },
    refreshReuseGraceSeconds: config.oauthRefreshReuseGraceSeconds,
  });

  const configuration: Configuration = {
    adapter: Adapter,
    clients: [],
    jwks: keys.signing as Configuration['jwks'],
    cookies: {
      keys: keys.cookies,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    routes: { authorization: '/authorize', userinfo: '/userinfo' },
    responseTypes: ['code'],
    // OAuth 2.0 for /v1 and OpenID Connect for sign-in: `openid` (+ `profile`, `email`) adds an ID token
    // to the token response and lets the /v1 access token call userinfo (see resourceIndicators below).
    // The dashboard signs in with `read` and keeps a session of its own.
    scopes: ['openid', 'offline_access', ...SCOPE_ORDER],
    // `auth_time` under openid: every ID token says when the user signed in.
    claims: { openid: ['sub', 'auth_time'], profile: ['name'], email: ['email', 'email_verified'] },
    // Only what really works is offered: ID tokens and userinfo JWTs signed with our RSA keys (client
    // secrets are stored hashed, so HS256 cannot be), proofs with the algorithms /v1 verifies.
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      dPoPSigningAlgValues: [...DPOP_ALGORITHMS],
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    // Only the methods clients can be registered with are offered (and advertised in discovery).
    clientAuthMethods: CLIENT_AUTH_METHODS,
    // RFC 8414 §2: without these, clients must assume client_secret_basic, yet public clients use `none`.
    discovery: {
      revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A client learns about its own tokens only: a confidential client of one account must not read
      // the subject, scopes and expiry of tokens issued to another account's client.
      introspection: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      // RFC 7009 §2.1: a client may revoke only tokens issued to it. A public client presenting another
      // client's token gets the same 200 as for an unknown token; a confidential one is told it may not.
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      // Userinfo accepts our /v1 access tokens (one token, one audience): see installAccessTokenLookup.
      userinfo: { enabled: true },
      // OpenID Connect RP-initiated logout: `end_session_endpoint` with an `id_token_hint` ends the session.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource(ctx, form) {
          // oidc-provider hands over its own form; the page is ours, with the same action and one-time token.
          const action = /action="([^"]+)"/.exec(form)?.[1] ?? '';
          const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)?.[1] ?? '';
          ctx.type = 'html';
          ctx.body = renderLogout({ action, xsrf, clientName: (ctx as KoaContextWithOIDC).oidc.client?.clientName });
        },
        postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = renderMessage('Signed out', 'You are signed out of Slipway. You can close this window.');
        },
      },
      // RFC 9449: a DPoP proof at the token endpoint binds the access token (`cnf.jkt`) and, for public
      // clients, the refresh token to the client's key; `dpop_bound_access_tokens` makes it required for a
      // client. Nonces are computed from a secret every instance shares, the same way /v1 does
      // (src/auth/dpop.ts), so one nonce is good at both.
      dPoP: { enabled: true, nonceSecret: dpopNonceSecret(keys), requireNonce: () => config.dpopNonceRequired },
      // RFC 9126: on for every client; `require_pushed_authorization_requests` makes it the only way in.
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false },
      resourceIndicators: {
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
      },
    },
    extraClientMetadata: {
      properties: ['first_party', 'account_id'],
      validator(_ctx, key, value) {
        if (key === 'first_party' && typeof value !== 'boolean') throw new errors.InvalidClientMetadata('first_party must be a boolean');
        if (key === 'account_id' && typeof value !== 'string') throw new errors.InvalidClientMetadata('account_id must be a string');
      },
    },
    // Every access token names the tenant it acts for: the user's account, or for client_credentials the
    // account that registered the client.
    // The user and the client were loaded moments ago by this same request (findAccount, client
    // authentication); their tenant is taken from there, and read from the database only otherwise.
    async extraTokenClaims(ctx, token) {
      if (token.kind !== 'AccessToken' && token.kind !== 'ClientCredentials') return undefined;
      const accountId = (token as { accountId?: string }).accountId;
      if (accountId) {
        const grantId = (token as { grantId?: string }).grantId;
        const loaded = ctx?.oidc?.account as { accountId?: string; tenant?: string } | undefined;
        if (loaded?.accountId === accountId && loaded.tenant) return { acct: loaded.tenant, gid: grantId };
        const user = await repos.users.findByIdCached(accountId);
        return user ? { acct: user.account_id, gid: grantId } : undefined;
      }
      const loadedClient = ctx?.oidc?.client;
      const tenant = loadedClient && loadedClient.clientId === token.clientId ? (loadedClient.metadata() as { account_id?: unknown }).account_id : undefined;
      if (typeof tenant === 'string') return { acct: tenant };
      const client = await repos.oauthClients.findByIdCached(token.clientId!);
      return client ? { acct: client.account_id } : undefined;
    },
    // The user from memory when read in the last PRINCIPAL_CACHE_SECONDS (removal or a change made on this
    // instance applies at once); a removed user's grants are deleted, so their refresh tokens fail anyway.
    findAccount: async (_ctx, sub) => {
      const user = await repos.users.findByIdCached(sub);
      if (!user) return undefined;
      // email_verified: Slipway does not verify addresses (an admin types them in), so it says false.
      return { accountId: user._id, tenant: user.account_id, claims: () => ({ sub: user._id, name: user.name, email: user.email, email_verified: false }) };
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A refresh token outlives the browser session that created it; it ends when revoked, reused or expired.
    expiresWithSession: () => false,
    async loadExistingGrant(ctx) {
      const { Grant } = ctx.oidc.provider;
      const clientId = ctx.oidc.client!.clientId;
      const session = ctx.oidc.session!;
      const grantId = (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(clientId);
      if (grantId) return await Grant.find(grantId);
      // Consent given in another browser session is remembered, but each session gets a grant of its own
      // with the same scopes: revoking one device's tokens (or reuse detected there) must not end the others.
      const rememberedId = session.accountId ? await repos.consents.grantIdFor(session.accountId, clientId) : undefined;
      const remembered = rememberedId ? await Grant.find(rememberedId) : undefined;
      if (!remembered || remembered.accountId !== session.accountId || remembered.clientId !== clientId) return undefined;
      const grant = new Grant({ accountId: session.accountId, clientId });
      const oidcScope = remembered.getOIDCScope();
      if (oidcScope) grant.addOIDCScope(oidcScope);
      const claims = remembered.getOIDCClaims();
      if (claims.length) grant.addOIDCClaims(claims);
      for (const [resource, scope] of Object.entries(remembered.resources ?? {})) if (scope) grant.addResourceScope(resource, scope);
      await grant.save();
      return grant;
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      ClientCredentials: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      IdToken: 3600,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: 365 * 24 * 3600,
      Session: 14 * 24 * 3600,
      Interaction: 3600,
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    // The same origin rule as /v1 (src/http/cors.ts), narrowed to the client: a configured origin or one
    // of this client's redirect origins. Confidential clients are not browser apps: never cross-origin.
    clientBasedCORS(_ctx, origin, client) {
      return client.clientAuthMethod === 'none' && clientMayCallFrom(corsOrigins, origin, client.redirectUris);
    },
    async renderError(ctx, out, error) {
      if ((error as { status?: number }).status === undefined || (error as { status: number }).status >= 500)
        logger.error({ err: error, request_id: ctx.state.requestId }, 'authorization server error');
      ctx.type = 'html';
      ctx.body = renderErrorPage(out as unknown as Record<string, string | undefined>);
    },
  };

  prepareStructuredTokenEndpoints();
  const provider = new Provider(config.issuer, configuration);
  // The provider's own contexts (interaction cookies) read X-Forwarded-Proto only behind a trusted proxy.
  provider.proxy = behindProxy(proxyModel(config));
  installAccessTokenLookup(provider, { config, keys, revokedGrants: repos.revokedGrants });
  // A second use of a code, refresh token, pushed request or interaction, however concurrent: refused the OAuth way.
  installSingleUseRefusals(provider, () => currentRequest.getStore());

  // DPoP proofs at the token endpoint (and userinfo) are single use across instances: oidc-provider's own
  // check is a find, then a save, which two concurrent requests both pass. The same unique insert as /v1's
  // replay cache (`dpop_proofs`), keyed apart from it by a prefix; swept with it. ReplayDetection serves
  // nothing else here (no JWT client authentication, no attestation).
  (provider.ReplayDetection as unknown as { unique(iss: string, jti: string, exp: number): Promise<boolean> }).unique = async (iss, jti, exp) =>
    await repos.dpopProofs.claim(`oauth:${iss}`, jti, new Date(exp * 1000));

  // Client secrets are stored only as SHA-256; compare the hash of what was presented.
  const clientProto = provider.Client.prototype as unknown as { compareClientSecret(actual: string): boolean; includeSid(): boolean; clientSecret?: string };
  // Every ID token names its session (`sid`), so an app can tell which sign-in a logout ends; oidc-provider
  // adds it only for clients with back-channel logout, which Slipway does not offer.
  clientProto.includeSid = () => true;
  clientProto.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    if (!this.clientSecret || typeof actual !== 'string') return false;
    const a = Buffer.from(hashClientSecret(actual));
    const b = Buffer.from(this.clientSecret);
    return a.length === b.length && crypto.timingSafeEqual(a, b);
  };

  provider.use(async (ctx, next) => currentRequest.run(ctx as KoaContextWithOIDC, next));
  installAccessTokenHash(provider);
  // Discovery tells the truth: the scopes a client can be granted, the claims an ID token or userinfo
  // can carry, and no claims parameter (not enabled).
  provider.use(async (ctx, next) => {
    await next();
    if ((ctx as KoaContextWithOIDC).oidc?.route !== 'discovery' || !ctx.body || typeof ctx.body !== 'object') return;
    const body = ctx.body as Record<string, unknown>;
    if (Array.isArray(body.scopes_supported)) body.scopes_supported = body.scopes_supported.filter((s) => KNOWN_SCOPES.has(s as string));
    delete body.claims_parameter_supported;
  });
  // Token endpoint budgets (tokenBudgets.ts): failures per source and per (client, source), counted
  // when the answer is a 4xx; tokens issued per client (contract: 600 a minute), counted on success. The
  // client-related budgets are checked once the client is named (after the provider parsed the body), so
  // the refusal is the provider's own OAuth error (429 with Retry-After).
  const budgets = new TokenBudgets(repos.rateLimits, config);
  const refuse = (ctx: KoaContextWithOIDC, retryAfter: number) => {
    ctx.set('Retry-After', String(retryAfter));
    metrics.rateLimited('token');
    return new RateLimited(retryAfter);
  };
  provider.use(async (ctx, next) => {
    const isToken = ctx.method === 'POST' && ctx.path === '/token';
    const sourceRetry = isToken ? budgets.sourceRefusal(ctx.ip) : undefined;
    if (sourceRetry !== undefined) {
      // Spent before anything is read: refused at once, whatever the request names.
      const error = refuse(ctx as KoaContextWithOIDC, sourceRetry);
      ctx.status = 429;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error: error.message, error_description: error.error_description };
      return;
    }
    await next();
    if (!isToken) return;
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC['oidc'] | undefined;
    const named = ctx.state.tokenClientId as string | undefined;
    // The answer is decided: a counter that cannot be written is logged, never turned into an error.
    const counted =
      ctx.status === 200 && oidc?.client
        ? budgets.succeeded(oidc.client.clientId)
        : ctx.status >= 400 && ctx.status < 500 && ctx.status !== 429
          ? budgets.failed(ctx.ip, named)
          : undefined;
    await counted?.catch((err: unknown) => logger.warn({ err, request_id: ctx.state.requestId }, 'token budget not counted'));
  });
  const baseFind = provider.Client.find.bind(provider.Client);
  provider.Client.find = async (id: string) => {
    const ctx = currentRequest.getStore();
    if (ctx?.oidc?.route === 'token') {
      ctx.state.tokenClientId ??= id;
      const retryAfter = budgets.clientRefusal(ctx.ip, id);
      if (retryAfter !== undefined) throw refuse(ctx, retryAfter);
    }
    return await baseFind(id);
  };

  const events = ['server_error', 'authorization.error', 'grant.error', 'revocation.error', 'introspection.error'];
  for (const event of events) {
    (provider as unknown as NodeJS.EventEmitter).on(event, (ctx: KoaContextWithOIDC, err: Error & { status?: number; error_description?: string }) => {
      const level = event === 'server_error' || (err.status ?? 500) >= 500 ? 'error' : 'info';
      if (event === 'grant.error' && (err as { error_detail?: string }).error_detail === 'refresh token already used') metrics.refreshTokenReuse.inc();
      logger[level](
        { event, request_id: ctx.state?.requestId, ...clientOf(ctx), error: err.message, description: err.error_description, ...(level === 'error' ? { err } : {}) },
        'oauth request refused',
      );
    });
  }
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    metrics.tokenIssued(ctx.oidc.params?.grant_type);
    logger.info({ request_id: ctx.state?.requestId, client_id: ctx.oidc.client?.clientId }, 'tokens issued');
  });

  return provider;
}
