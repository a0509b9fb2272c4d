import * as oauth from 'oauth4webapi';
import type { AuthorizedRequest, TokenProvider } from './core.js';
import { OAuthError, SlipwayError } from './errors.js';

/**
 * OAuth 2.0 for apps that act for a user (Authorization Code + PKCE S256, with state) or for
 * themselves (client credentials), on oauth4webapi. Works in browsers and Node ≥ 20.
 */
export interface OAuthOptions {
  /** Slipway's base URL (the issuer is `{baseUrl}/oauth`), or give `issuer` itself. */
  baseUrl?: string;
  issuer?: string;
  clientId: string;
  /** Confidential clients only (client_secret_basic). Never ship one in a browser or mobile app. */
  clientSecret?: string;
  /** The registered redirect URI (authorization code flow). */
  redirectUri?: string;
  /** Allow plain http to the server. Default: only for loopback hosts (127.0.0.1, localhost, [::1]). */
  allowInsecureRequests?: boolean;
  fetch?: typeof fetch;
  /**
   * DPoP (RFC 9449): binds the tokens to a key pair, so a copied access or refresh token is useless
   * without it. `true` makes a non-extractable ES256 (P-256) key pair once, the first time it is
   * needed, for this helper and every session it makes; or pass your own key pair (ECDSA P-256; the
   * private key may be non-extractable) to keep a session across restarts (see the README).
   */
  dpop?: boolean | CryptoKeyPair;
}

export interface TokenSet {
  accessToken: string;
  /** Rotated on every refresh for public clients without DPoP (DPoP-bound ones are not): always keep the newest. */
  refreshToken?: string | undefined;
  /** Epoch milliseconds after which the access token is no longer accepted. */
  expiresAt?: number | undefined;
  scope?: string | undefined;
  /** `bearer`, or `dpop` for DPoP-bound tokens (lower case). */
  tokenType: string;
}

export interface AuthorizationRequest {
  /** Send the user's browser here. */
  url: string;
  /** Keep both until the callback, then pass them to `exchangeCode`. */
  state: string;
  codeVerifier: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function toOAuthError(err: unknown): SlipwayError {
  if (err instanceof SlipwayError) return err;
  if (err instanceof oauth.ResponseBodyError) {
    return new OAuthError({ code: err.error, status: err.status, message: err.error_description ?? err.error, cause: err });
  }
  if (err instanceof oauth.AuthorizationResponseError) {
    return new OAuthError({ code: err.error, status: null, message: err.error_description ?? err.error, cause: err });
  }
  const e = err as Error & { code?: unknown };
  // fetch rejects with a bare TypeError when the server cannot be reached.
  if (err instanceof TypeError && e.code === undefined) return new OAuthError({ code: 'network_error', status: null, message: `Could not reach the authorization server: ${e.message}`, cause: err });
  return new OAuthError({ code: typeof e.code === 'string' ? e.code.toLowerCase() : 'oauth_error', status: null, message: e.message ?? String(err), cause: err });
}

function tokenSet(response: oauth.TokenEndpointResponse, previous?: TokenSet): TokenSet {
  return {
    accessToken: response.access_token,
    // A server that does not rotate keeps the old refresh token valid.
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scope: response.scope ?? previous?.scope,
    tokenType: response.token_type,
  };
}

export class SlipwayOAuth {
  readonly issuer: string;
  readonly clientId: string;
  readonly redirectUri: string | undefined;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  readonly #http: { [oauth.allowInsecureRequests]?: boolean; [oauth.customFetch]?: typeof fetch };
  #server: Promise<oauth.AuthorizationServer> | undefined;
  readonly #dpopOption: boolean | CryptoKeyPair;
  #dpop: Promise<{ keyPair: CryptoKeyPair; handle: oauth.DPoPHandle }> | undefined;

  constructor(options: OAuthOptions) {
    const issuer = options.issuer ?? (options.baseUrl ? `${options.baseUrl.replace(/\/+$/, '')}/oauth` : undefined);
    if (!issuer) throw new TypeError('baseUrl or issuer is required');
    if (!options.clientId) throw new TypeError('clientId is required');
    this.issuer = issuer;
    this.clientId = options.clientId;
    this.redirectUri = options.redirectUri;
    this.#client = { client_id: options.clientId };
    this.#dpopOption = options.dpop ?? false;
    this.#auth = options.clientSecret ? oauth.ClientSecretBasic(options.clientSecret) : oauth.None();
    const url = new URL(issuer);
    const insecure = options.allowInsecureRequests ?? (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
    this.#http = {
      ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
      ...(options.fetch ? { [oauth.customFetch]: options.fetch } : {}),
    };
  }

  /** The authorization server's metadata (RFC 8414), fetched once. */
  metadata(): Promise<oauth.AuthorizationServer> {
    this.#server ??= (async () => {
      const issuer = new URL(this.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...this.#http });
      return await oauth.processDiscoveryResponse(issuer, response);
    })().catch((err: unknown) => {
      this.#server = undefined;
      throw toOAuthError(err);
    });
    return this.#server;
  }

  /** Whether tokens are DPoP-bound (the `dpop` option). */
  get dpop(): boolean {
    return this.#dpopOption !== false;
  }

  /**
   * The DPoP key pair (made on first use with `dpop: true`), or undefined without DPoP. Keep it with
   * the tokens to resume a session: a bound refresh token is useless without it.
   */
  async dpopKeyPair(): Promise<CryptoKeyPair | undefined> {
    return (await this.#dpopState())?.keyPair;
  }

  #dpopState(): Promise<{ keyPair: CryptoKeyPair; handle: oauth.DPoPHandle }> | undefined {
    const option = this.#dpopOption;
    if (option === false) return undefined;
    this.#dpop ??= (async () => {
      const keyPair = option === true ? await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) : option;
      // One handle per key: it also remembers the latest DPoP-Nonce per server (origin).
      return { keyPair, handle: oauth.DPoP(this.#client, keyPair) };
    })().catch((err: unknown) => {
      this.#dpop = undefined;
      throw toOAuthError(err);
    });
    return this.#dpop;
  }

  /**
   * One token endpoint request with a DPoP proof when `dpop` is on; a `use_dpop_nonce` answer is
   * sent again once with the nonce it carried.
   */
  async #tokenRequest(
    send: (options: oauth.TokenEndpointRequestOptions) => Promise<Response>,
    process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<oauth.TokenEndpointResponse> {
    const dpop = await this.#dpopState();
    const options: oauth.TokenEndpointRequestOptions = dpop ? { ...this.#http, DPoP: dpop.handle } : this.#http;
    try {
      return await process(await send(options));
    } catch (err) {
      if (!dpop || !oauth.isDPoPNonceError(err)) throw err;
      return await process(await send(options));
    }
  }

  /**
   * Sends one /v1 request with a DPoP-bound token: `Authorization: DPoP`, a fresh proof (`htm`,
   * `htu`, `ath`, the server's latest nonce), and once more with the new nonce after `use_dpop_nonce`.
   * Other tokens go as `Bearer`.
   */
  async #send(token: string, tokenType: string | undefined, request: AuthorizedRequest): Promise<Response> {
    const { authorization: _ignored, ...headers } = request.headers;
    const dpop = tokenType?.toLowerCase() === 'dpop' ? await this.#dpopState() : undefined;
    if (!dpop) return await request.fetch(request.url, { method: request.method, headers: { ...headers, authorization: `Bearer ${token}` }, body: request.body, signal: request.signal });
    const url = new URL(request.url);
    const options: oauth.ProtectedResourceRequestOptions = {
      DPoP: dpop.handle,
      signal: request.signal,
      [oauth.customFetch]: request.fetch as NonNullable<oauth.ProtectedResourceRequestOptions[typeof oauth.customFetch]>,
      // The client already chose its base URL; plain http is its decision, as for Bearer tokens.
      ...(url.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}),
    };
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await oauth.protectedResourceRequest(token, request.method, url, new Headers(headers), request.body ?? null, options);
      } catch (err) {
        if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw err;
        // The nonce from the answer is already remembered; the next proof carries it.
        if (attempt === 0 && oauth.isDPoPNonceError(err)) {
          await err.response.body?.cancel();
          continue;
        }
        // Any other challenge (invalid_dpop_proof, invalid_token, insufficient_scope) is the API's error.
        return err.response;
      }
    }
  }

  /** Builds the authorization URL: `response_type=code`, PKCE S256, a random `state`. */
  async authorizationUrl(params: { scope: string; redirectUri?: string; state?: string; extra?: Record<string, string> }): Promise<AuthorizationRequest> {
    const as = await this.metadata();
    const redirectUri = params.redirectUri ?? this.redirectUri;
    if (!redirectUri) throw new TypeError('redirectUri is required');
    if (!as.authorization_endpoint) throw new OAuthError({ code: 'invalid_metadata', status: null, message: 'no authorization_endpoint' });
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = params.state ?? oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint);
    url.search = new URLSearchParams({
      ...params.extra,
      response_type: 'code',
      client_id: this.clientId,
      redirect_uri: redirectUri,
      scope: params.scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.href, state, codeVerifier };
  }

  /**
   * Checks the callback (`state`, `iss`, `error`) and exchanges its code for tokens with the PKCE
   * verifier. `callbackUrl` is the full URL the browser was redirected to.
   */
  async exchangeCode(callbackUrl: string | URL, params: { state: string; codeVerifier: string; redirectUri?: string }): Promise<TokenSet> {
    const redirectUri = params.redirectUri ?? this.redirectUri;
    if (!redirectUri) throw new TypeError('redirectUri is required');
    try {
      const as = await this.metadata();
      const callback = oauth.validateAuthResponse(as, this.#client, new URL(callbackUrl), params.state);
      return tokenSet(
        await this.#tokenRequest(
          (options) => oauth.authorizationCodeGrantRequest(as, this.#client, this.#auth, callback, redirectUri, params.codeVerifier, options),
          (response) => oauth.processAuthorizationCodeResponse(as, this.#client, response),
        ),
      );
    } catch (err) {
      throw toOAuthError(err);
    }
  }

  /** `grant_type=refresh_token` with `refresh_token` and `client_id` (public clients; Basic for confidential). */
  async refresh(refreshToken: string, previous?: TokenSet): Promise<TokenSet> {
    try {
      const as = await this.metadata();
      return tokenSet(
        await this.#tokenRequest(
          (options) => oauth.refreshTokenGrantRequest(as, this.#client, this.#auth, refreshToken, options),
          (response) => oauth.processRefreshTokenResponse(as, this.#client, response),
        ),
        previous,
      );
    } catch (err) {
      throw toOAuthError(err);
    }
  }

  /** Client credentials (confidential clients): a token that acts as the client's account. */
  async clientCredentials(scope?: string): Promise<TokenSet> {
    try {
      const as = await this.metadata();
      return tokenSet(
        await this.#tokenRequest(
          (options) => oauth.clientCredentialsGrantRequest(as, this.#client, this.#auth, scope ? { scope } : {}, options),
          (response) => oauth.processClientCredentialsResponse(as, this.#client, response),
        ),
      );
    } catch (err) {
      throw toOAuthError(err);
    }
  }

  /**
   * A token provider for `new Slipway({ auth })` from a user's tokens: refreshes before the access
   * token expires and once after a 401 `invalid_token`, one refresh at a time (refresh tokens rotate:
   * two refreshes with the same one would end the grant). `onTokens` sees every new set, to persist it.
   */
  session(tokens: TokenSet, options: { onTokens?: (tokens: TokenSet) => void | Promise<void>; expirySkewSeconds?: number } = {}): OAuthSession {
    return new OAuthSession(tokens, (current) => {
      if (!current.refreshToken) throw new OAuthError({ code: 'invalid_token', status: 401, message: 'The access token expired and there is no refresh token.' });
      return this.refresh(current.refreshToken, current);
    }, { ...options, send: (token, tokenType, request) => this.#send(token, tokenType, request) });
  }

  /** A token provider for a confidential client: client credentials, fetched again when expired or rejected. */
  clientCredentialsSession(scope?: string, options: { expirySkewSeconds?: number } = {}): OAuthSession {
    return new OAuthSession(undefined, () => this.clientCredentials(scope), { ...options, send: (token, tokenType, request) => this.#send(token, tokenType, request) });
  }
}

export interface OAuthSessionOptions {
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  expirySkewSeconds?: number;
  /** Sends one request with an access token of this session (default: `Authorization: Bearer`). */
  send?: (token: string, tokenType: string | undefined, request: AuthorizedRequest) => Promise<Response>;
}

/** Holds the current tokens and renews them (see `SlipwayOAuth.session`). */
export class OAuthSession implements TokenProvider {
  #tokens: TokenSet | undefined;
  readonly #send: OAuthSessionOptions['send'];
  #renewing: Promise<TokenSet> | undefined;
  readonly #renew: (current: TokenSet) => Promise<TokenSet>;
  readonly #onTokens: ((tokens: TokenSet) => void | Promise<void>) | undefined;
  readonly #skewMs: number;

  constructor(
    tokens: TokenSet | undefined,
    renew: (current: TokenSet) => Promise<TokenSet>,
    options: OAuthSessionOptions = {},
  ) {
    this.#tokens = tokens;
    this.#send = options.send;
    this.#renew = renew;
    this.#onTokens = options.onTokens;
    this.#skewMs = (options.expirySkewSeconds ?? 30) * 1000;
  }

  /** The current tokens (after any refresh). */
  get tokens(): TokenSet | undefined {
    return this.#tokens;
  }

  #expired(tokens: TokenSet): boolean {
    return tokens.expiresAt !== undefined && Date.now() >= tokens.expiresAt - this.#skewMs;
  }

  async #renewOnce(): Promise<TokenSet> {
    this.#renewing ??= (async () => {
      try {
        const next = await this.#renew(this.#tokens ?? { accessToken: '', tokenType: 'bearer' });
        this.#tokens = next;
        await this.#onTokens?.(next);
        return next;
      } finally {
        this.#renewing = undefined;
      }
    })();
    return await this.#renewing;
  }

  async getAccessToken(): Promise<string> {
    if (this.#renewing) return (await this.#renewing).accessToken;
    if (!this.#tokens || this.#expired(this.#tokens)) return (await this.#renewOnce()).accessToken;
    return this.#tokens.accessToken;
  }

  /** Sends one request with `token`: as DPoP when this session's tokens are DPoP-bound, else as Bearer. */
  async send(token: string, request: AuthorizedRequest): Promise<Response> {
    // The type of the token being sent: the current set's, or the renewed set's while it is renewed.
    const tokens = this.#tokens?.accessToken === token ? this.#tokens : this.#renewing ? await this.#renewing.catch(() => undefined) : this.#tokens;
    if (this.#send) return await this.#send(token, tokens?.tokenType, request);
    const { authorization: _ignored, ...headers } = request.headers;
    return await request.fetch(request.url, { method: request.method, headers: { ...headers, authorization: `Bearer ${token}` }, body: request.body, signal: request.signal });
  }

  /** Renews after the server rejected `rejectedToken`; if another call already did, uses its result. */
  async refresh(_signal?: AbortSignal, rejectedToken?: string): Promise<string> {
    if (this.#renewing) return (await this.#renewing).accessToken;
    if (rejectedToken !== undefined && this.#tokens && this.#tokens.accessToken !== rejectedToken) return this.#tokens.accessToken;
    return (await this.#renewOnce()).accessToken;
  }
}
