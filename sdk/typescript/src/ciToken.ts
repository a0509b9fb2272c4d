import * as oauth from 'oauth4webapi';
import { OAuthError, SlipwayError } from './errors.js';
import { SlipwayOAuth, type OAuthSession, type TokenSet } from './oauth.js';

/**
 * CI without stored secrets: a CI job's OpenID Connect token (GitHub Actions, GitLab CI, …) exchanged at
 * Slipway's token endpoint (RFC 8693) for an access token of the project whose trust policy accepts it.
 * No client id, no secret; the token is DPoP-bound to a key pair made for the exchange unless `dpop: false`.
 */

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
/** The server's built-in client of the exchange (it takes no client authentication). */
const EXCHANGE_CLIENT_ID = 'slipway-token-exchange';

export interface CiTokenSource {
  /** The CI's OIDC token itself (a JWT), e.g. from `$CI_JOB_JWT` or GitLab's `id_tokens`. */
  token?: string;
  /** A file holding the token (Node only), e.g. one a CI step wrote. Surrounding whitespace is ignored. */
  tokenFile?: string;
  /**
   * Ask GitHub Actions for one: `GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=…` with
   * `Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN` (the job needs `permissions: id-token: write`).
   * `true` reads both from `process.env`; or give them.
   */
  github?: boolean | { requestUrl: string; requestToken: string };
  /** The `aud` asked of GitHub (default: the Slipway base URL, a trust policy's default audience). */
  githubAudience?: string;
}

export interface CiTokenExchangeOptions extends CiTokenSource {
  /** Slipway's base URL, e.g. https://slipway.example.com. */
  baseUrl: string;
  /** `audience=proj_…`: the project, needed only when policies of several projects accept the token. */
  project?: string;
  /** Space-separated scopes within the policy's (default: all of the policy's). */
  scope?: string;
  /** Bind the token to a key pair (RFC 9449): `true` (default) makes a non-extractable one; `false` for Bearer. */
  dpop?: boolean | CryptoKeyPair;
  /** Allow plain http to the server (default: loopback hosts only). */
  allowInsecureRequests?: boolean;
  fetch?: typeof fetch;
}

export interface CiTokenExchange {
  /** The exchanged access token (no refresh token: exchange a fresh CI token when it expires). */
  tokens: TokenSet;
  /** For `new Slipway({ baseUrl, auth })`: sends the token (with DPoP proofs when bound). */
  auth: OAuthSession;
}

function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name];
  return value && value.trim() !== '' ? value : undefined;
}

/** Where a CI token comes from, said in errors. */
function describeSource(source: CiTokenSource): string {
  if (source.token !== undefined) return 'token';
  if (source.tokenFile !== undefined) return 'tokenFile';
  return 'github';
}

/** The CI's OIDC token from exactly one of `token`, `tokenFile`, `github`. */
export async function readCiToken(source: CiTokenSource & { baseUrl?: string; fetch?: typeof fetch }): Promise<string> {
  const given = [source.token !== undefined, source.tokenFile !== undefined, Boolean(source.github)].filter(Boolean).length;
  if (given !== 1) throw new TypeError('Give exactly one of token, tokenFile or github');
  let token: string;
  if (source.token !== undefined) {
    token = source.token.trim();
  } else if (source.tokenFile !== undefined) {
    // Through a name, so bundlers for browsers leave Node's fs alone (tokenFile is for Node only).
    const fsModule = 'node:fs/promises';
    const { readFile } = (await import(/* @vite-ignore */ fsModule)) as { readFile(path: string, encoding: 'utf8'): Promise<string> };
    try {
      token = (await readFile(source.tokenFile, 'utf8')).trim();
    } catch (err) {
      throw new OAuthError({ code: 'ci_token_unavailable', status: null, message: `Could not read the CI token file ${source.tokenFile}: ${(err as Error).message}`, cause: err });
    }
  } else {
    token = await requestGithubToken(source);
  }
  if (token === '') throw new OAuthError({ code: 'ci_token_unavailable', status: null, message: `The CI token (${describeSource(source)}) is empty.` });
  return token;
}

async function requestGithubToken(source: CiTokenSource & { baseUrl?: string; fetch?: typeof fetch }): Promise<string> {
  const given = typeof source.github === 'object' ? source.github : { requestUrl: env('ACTIONS_ID_TOKEN_REQUEST_URL'), requestToken: env('ACTIONS_ID_TOKEN_REQUEST_TOKEN') };
  if (!given.requestUrl || !given.requestToken) {
    throw new OAuthError({
      code: 'ci_token_unavailable',
      status: null,
      message: 'ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set: run in GitHub Actions with `permissions: id-token: write`.',
    });
  }
  const audience = source.githubAudience ?? source.baseUrl?.replace(/\/+$/, '');
  const url = new URL(given.requestUrl);
  if (audience) url.searchParams.set('audience', audience);
  let response: Response;
  try {
    response = await (source.fetch ?? fetch)(url, { headers: { authorization: `Bearer ${given.requestToken}`, accept: 'application/json' } });
  } catch (err) {
    throw new OAuthError({ code: 'ci_token_unavailable', status: null, message: `Could not reach GitHub's token service: ${(err as Error).message}`, cause: err });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new OAuthError({ code: 'ci_token_unavailable', status: response.status, message: `GitHub's token service answered ${response.status}.` });
  }
  const body = (await response.json().catch(() => undefined)) as { value?: unknown } | undefined;
  if (typeof body?.value !== 'string') throw new OAuthError({ code: 'ci_token_unavailable', status: response.status, message: "GitHub's token service answered without a token (no `value`)." });
  return body.value;
}

/** The exchange takes no client authentication at all (a client_id is refused): nothing is added. */
const noClientAuth: oauth.ClientAuth = () => {};

/**
 * Exchanges a CI job's OIDC token for a Slipway access token and returns a token provider for
 * `new Slipway({ baseUrl, auth })`. Each CI token is accepted once; the access token lasts the trust
 * policy's `max_ttl_seconds` (900 s by default) and is not refreshed.
 */
export async function exchangeCiToken(options: CiTokenExchangeOptions): Promise<CiTokenExchange> {
  if (!options.baseUrl) throw new TypeError('baseUrl is required');
  const subjectToken = await readCiToken(options);
  const dpopOption = options.dpop ?? true;
  const keyPair = dpopOption === false ? undefined : dpopOption === true ? await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) : dpopOption;
  const helper = new SlipwayOAuth({
    baseUrl: options.baseUrl,
    clientId: EXCHANGE_CLIENT_ID,
    ...(keyPair ? { dpop: keyPair } : {}),
    ...(options.allowInsecureRequests !== undefined ? { allowInsecureRequests: options.allowInsecureRequests } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const as = await helper.metadata();
  const client: oauth.Client = { client_id: EXCHANGE_CLIENT_ID };
  const issuer = new URL(helper.issuer);
  const insecure = options.allowInsecureRequests ?? (issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname));
  const requestOptions: oauth.TokenEndpointRequestOptions = {
    ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(options.fetch ? { [oauth.customFetch]: options.fetch as NonNullable<oauth.TokenEndpointRequestOptions[typeof oauth.customFetch]> } : {}),
    ...(keyPair ? { DPoP: oauth.DPoP(client, keyPair) } : {}),
  };
  const parameters: Record<string, string> = { subject_token: subjectToken, subject_token_type: JWT_TOKEN_TYPE };
  if (options.project) parameters.audience = options.project;
  if (options.scope) parameters.scope = options.scope;
  const send = async () => await oauth.processGenericTokenEndpointResponse(as, client, await oauth.genericTokenEndpointRequest(as, client, noClientAuth, TOKEN_EXCHANGE_GRANT, parameters, requestOptions));
  let response: oauth.TokenEndpointResponse;
  try {
    try {
      response = await send();
    } catch (err) {
      // A server that asks for a DPoP nonce: once more with it (the handle remembered it).
      if (!keyPair || !oauth.isDPoPNonceError(err)) throw err;
      response = await send();
    }
  } catch (err) {
    if (err instanceof SlipwayError) throw err;
    if (err instanceof oauth.ResponseBodyError) throw new OAuthError({ code: err.error, status: err.status, message: err.error_description ?? err.error, cause: err });
    if (err instanceof TypeError && (err as { code?: unknown }).code === undefined) throw new OAuthError({ code: 'network_error', status: null, message: `Could not reach the authorization server: ${err.message}`, cause: err });
    const e = err as Error & { code?: unknown };
    throw new OAuthError({ code: typeof e.code === 'string' ? e.code.toLowerCase() : 'oauth_error', status: null, message: e.message ?? String(err), cause: err });
  }
  const tokens: TokenSet = {
    accessToken: response.access_token,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scope: response.scope,
    tokenType: response.token_type,
  };
  return { tokens, auth: helper.session(tokens) };
}
