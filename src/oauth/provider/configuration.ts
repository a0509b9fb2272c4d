import type { Configuration } from 'oidc-provider';
import type { Config } from '../../config/index.ts';
import { SCOPE_ORDER } from '../../domain/principal.ts';
import { DPOP_ALGORITHMS } from '../../errors.ts';
import { dpopNonceSecret, type KeyMaterial } from '../../keys/keystore.ts';
import type { Logger } from '../../logger.ts';
import type { ProviderStorage } from './storage.ts';
import { extraTokenClaims, findAccount } from './accounts.ts';
import { CLIENT_AUTH_METHODS } from './clientAuth.ts';
import { clientBasedCORS, extraClientMetadata } from './clients.ts';
import { deviceFlow } from './deviceFlow.ts';
import { loadExistingGrant } from './grants.ts';
import { LIFETIMES } from './lifetimes.ts';
import { renderError, rpInitiatedLogout } from './pages.ts';
import { resourceIndicators } from './resources.ts';
import { introspection, revocation } from './tokenPolicies.ts';
import { TOKEN_EXCHANGE_CLIENT } from './tokenExchange.ts';

export interface ConfigurationDeps {
  config: Config;
  keys: KeyMaterial;
  repos: Pick<ProviderStorage, 'users' | 'oauthClients' | 'consents'>;
  logger: Logger;
  /** The storage adapter (./storage.ts). */
  adapter: Configuration['adapter'];
}

/** What the provider offers: only what really works, advertised as such in discovery. */
function features(config: Config, keys: KeyMaterial, logger: Logger): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection,
    revocation,
    // Userinfo accepts our /v1 access tokens (one token, one audience): see installAccessTokenLookup.
    userinfo: { enabled: true },
    rpInitiatedLogout,
    // RFC 9449: a DPoP proof at the token endpoint binds the access token (`cnf.jkt`) and, for public
    // clients, the refresh token to the client's key; `dpop_bound_access_tokens` makes it required for a
    // client. Nonces are computed from a secret every instance shares, the same way /v1 does
    // (src/auth/dpop.ts), so one nonce is good at both.
    dPoP: { enabled: true, nonceSecret: dpopNonceSecret(keys), requireNonce: () => config.dpopNonceRequired },
    // RFC 9126: on for every client; `require_pushed_authorization_requests` makes it the only way in.
    pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false },
    resourceIndicators: resourceIndicators(config.apiAudience),
    // RFC 8628 (docs/product.md §12): for clients registered with the device grant, such as the CLI.
    deviceFlow: deviceFlow(logger),
  };
}

/** The provider's options object, from configuration, keys and the parts beside this file. */
export function providerConfiguration({ config, keys, repos, logger, adapter }: ConfigurationDeps): Configuration {
  return {
    adapter,
    // The one built-in client: CI token exchange (docs/product.md §13). Tenants' clients come from the adapter.
    clients: [TOKEN_EXCHANGE_CLIENT],
    jwks: keys.signing as Configuration['jwks'],
    cookies: {
      keys: keys.cookies,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    routes: { authorization: '/authorize', userinfo: '/userinfo' },
    responseTypes: ['code'],
    // OAuth 2.0 for /v1 and OpenID Connect for sign-in: `openid` (+ `profile`, `email`) adds an ID token
    // to the token response and lets the /v1 access token call userinfo (./resources.ts).
    // The dashboard signs in with `read` and keeps a session of its own.
    scopes: ['openid', 'offline_access', ...SCOPE_ORDER],
    // `auth_time` under openid: every ID token says when the user signed in.
    claims: { openid: ['sub', 'auth_time'], profile: ['name'], email: ['email', 'email_verified'] },
    // Only what really works is offered: ID tokens and userinfo JWTs signed with our RSA keys (client
    // secrets are stored hashed, so HS256 cannot be), proofs with the algorithms /v1 verifies.
    enabledJWA: { idTokenSigningAlgValues: ['RS256'], userinfoSigningAlgValues: ['RS256'], dPoPSigningAlgValues: [...DPOP_ALGORITHMS] },
    allowOmittingSingleRegisteredRedirectUri: false,
    // Only the methods clients can be registered with are offered (and advertised in discovery).
    clientAuthMethods: CLIENT_AUTH_METHODS,
    // RFC 8414 §2: without these, clients must assume client_secret_basic, yet public clients use `none`.
    discovery: {
      revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
      introspection_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    },
    pkce: { required: () => true },
    // docs/product.md §11: the account a person signs in to, named by the app (`acct_…`); the chooser otherwise.
    extraParams: ['account_hint'],
    features: features(config, keys, logger),
    extraClientMetadata,
    extraTokenClaims: extraTokenClaims(repos),
    findAccount: findAccount(repos),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A refresh token outlives the browser session that created it; it ends when revoked, reused or expired.
    expiresWithSession: () => false,
    loadExistingGrant: loadExistingGrant(repos),
    ttl: LIFETIMES,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    clientBasedCORS: clientBasedCORS(config.corsOrigins),
    renderError: renderError(logger),
  };
}
