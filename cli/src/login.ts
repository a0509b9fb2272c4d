/**
 * `slip login`: the OAuth 2.0 Device Authorization Grant (RFC 8628) for the first-party public client
 * `slipway-cli`, with DPoP-bound tokens (RFC 9449). The key pair is made here, once per sign-in, and
 * kept with the tokens; `slip logout` revokes the refresh token (RFC 7009).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { OAuthError, Slipway, SlipwayOAuth, type TokenSet } from '@slipway/sdk';
import { CliError, EXIT } from './errors.js';
import { CLIENT_ID, USER_AGENT } from './session.js';
import type { StoredCredentials } from './store.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface DeviceLoginOptions {
  url: string;
  scope: string;
  account?: string | undefined;
  /** Open the verification page in a browser when one can open. */
  browser: boolean;
  /** Where the instructions go (stderr: stdout stays for --json). */
  say: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

function httpOptions(url: string): { [oauth.allowInsecureRequests]?: boolean; headers: Record<string, string> } {
  const { protocol, hostname } = new URL(url);
  return { ...(protocol === 'http:' && LOOPBACK.has(hostname) ? { [oauth.allowInsecureRequests]: true } : {}), headers: { 'user-agent': USER_AGENT } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The command that opens a URL in the person's browser here, or undefined where none can open. */
export function browserOpener(env: NodeJS.ProcessEnv = process.env): { command: string; args: (url: string) => string[] } | undefined {
  if (env.SLIPWAY_NO_BROWSER || env.CI || !process.stderr.isTTY) return undefined;
  if (process.platform === 'darwin') return { command: 'open', args: (url) => [url] };
  if (process.platform === 'win32') return { command: 'rundll32', args: (url) => ['url.dll,FileProtocolHandler', url] };
  // Elsewhere only with a graphical session and xdg-open on PATH (over SSH there is neither).
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  const found = (env.PATH ?? '').split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, 'xdg-open')));
  return found ? { command: 'xdg-open', args: (url) => [url] } : undefined;
}

/** A new ES256 key pair whose private JWK can be stored with the tokens. */
async function newDpopKey(): Promise<{ keyPair: CryptoKeyPair; jwk: JsonWebKey }> {
  const keyPair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  return { keyPair, jwk: await crypto.subtle.exportKey('jwk', keyPair.privateKey) };
}

function toTokenSet(response: oauth.TokenEndpointResponse): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : undefined,
    scope: response.scope,
    tokenType: response.token_type,
  };
}

export async function deviceLogin(options: DeviceLoginOptions): Promise<StoredCredentials> {
  const { url, say } = options;
  const { keyPair, jwk } = await newDpopKey();
  const helper = new SlipwayOAuth({ baseUrl: url, clientId: CLIENT_ID, dpop: keyPair });
  const as = await helper.metadata();
  if (!as.device_authorization_endpoint) {
    throw new CliError(`${url} does not offer the device sign-in (its authorization server metadata has no device_authorization_endpoint). Use an API key with SLIPWAY_TOKEN, or upgrade the server.`, EXIT.error, 'device_flow_unsupported');
  }
  const client: oauth.Client = { client_id: CLIENT_ID };
  const http = httpOptions(url);
  const parameters: Record<string, string> = { scope: options.scope };
  if (options.account) parameters.account_hint = options.account;

  let device: oauth.DeviceAuthorizationResponse;
  try {
    device = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, oauth.None(), parameters, http));
  } catch (err) {
    throw asOAuthError(err);
  }

  say(`To sign in, open ${device.verification_uri} in a browser and enter the code ${device.user_code}`);
  if (device.verification_uri_complete) say(`(or open ${device.verification_uri_complete}, which carries the code)`);
  say(`Check that the page shows the same code. It expires in ${Math.round(device.expires_in / 60)} minutes.`);
  const opener = options.browser ? browserOpener(options.env) : undefined;
  if (opener) {
    const child = spawn(opener.command, opener.args(device.verification_uri_complete ?? device.verification_uri), { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    say('Opened it in your browser.');
  }
  say('Waiting for you to allow it…');

  const dpop = oauth.DPoP(client, keyPair);
  let interval = Math.max(1, device.interval ?? 5);
  const deadline = Date.now() + device.expires_in * 1000;
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() > deadline) throw new CliError('The code expired before it was allowed: run `slip login` again.', EXIT.auth, 'expired_token');
    try {
      const response = await oauth.deviceCodeGrantRequest(as, client, oauth.None(), device.device_code, { ...http, DPoP: dpop });
      const tokens = toTokenSet(await oauth.processDeviceCodeResponse(as, client, response));
      if (tokens.tokenType.toLowerCase() !== 'dpop') throw new CliError(`The server issued ${tokens.tokenType} tokens, not DPoP-bound ones: refusing to store them.`, EXIT.auth, 'not_dpop_bound');
      return await describeSignIn(url, tokens, jwk, keyPair);
    } catch (err) {
      if (oauth.isDPoPNonceError(err)) continue; // the nonce is remembered: the next poll carries it
      if (err instanceof oauth.ResponseBodyError) {
        if (err.error === 'authorization_pending') continue;
        if (err.error === 'slow_down') {
          interval += 5; // RFC 8628 §3.5
          continue;
        }
        if (err.error === 'access_denied') throw new CliError('The sign-in was denied.', EXIT.auth, 'access_denied');
        if (err.error === 'expired_token') throw new CliError('The code expired before it was allowed: run `slip login` again.', EXIT.auth, 'expired_token');
      }
      throw asOAuthError(err);
    }
  }
}

/** Who the new tokens act for (the user and the account), to store and show. */
async function describeSignIn(url: string, tokens: TokenSet, jwk: JsonWebKey, keyPair: CryptoKeyPair): Promise<StoredCredentials> {
  const oauthHelper = new SlipwayOAuth({ baseUrl: url, clientId: CLIENT_ID, dpop: keyPair });
  const client = new Slipway({ baseUrl: url, auth: oauthHelper.session(tokens), headers: { 'user-agent': USER_AGENT } });
  const me = await client.users.me();
  const accounts = await client
    .request<{ data: { account_id: string; name: string; role: string; current: boolean }[] }>({ method: 'GET', path: '/v1/accounts', query: { per_page: 100 } })
    .catch(() => ({ data: [] }));
  const current = accounts.data.find((a) => a.current);
  return {
    url,
    kind: 'oauth',
    clientId: CLIENT_ID,
    tokens,
    dpopKey: jwk,
    user: { id: me.id, email: me.email, name: me.name },
    account: { id: me.account_id, name: current?.name, role: me.role },
    storedAt: new Date().toISOString(),
  };
}

function asOAuthError(err: unknown): Error {
  if (err instanceof CliError || err instanceof OAuthError) return err;
  if (err instanceof oauth.ResponseBodyError) return new OAuthError({ code: err.error, status: err.status, message: err.error_description ?? err.error, cause: err });
  if (err instanceof TypeError) return new CliError(`Could not reach the server: ${err.message}`, EXIT.error, 'network_error');
  return err instanceof Error ? err : new Error(String(err));
}

/** RFC 7009: revokes the refresh token (and with it the access tokens of the grant). */
export async function revoke(credentials: StoredCredentials): Promise<void> {
  const token = credentials.tokens?.refreshToken ?? credentials.tokens?.accessToken;
  if (!token) return;
  const helper = new SlipwayOAuth({ baseUrl: credentials.url, clientId: credentials.clientId ?? CLIENT_ID });
  const as = await helper.metadata();
  if (!as.revocation_endpoint) throw new CliError(`${credentials.url} has no revocation endpoint: the sign-in could not be revoked.`, EXIT.error);
  const client: oauth.Client = { client_id: credentials.clientId ?? CLIENT_ID };
  try {
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), token, { ...httpOptions(credentials.url), additionalParameters: { token_type_hint: credentials.tokens?.refreshToken ? 'refresh_token' : 'access_token' } }));
  } catch (err) {
    throw asOAuthError(err);
  }
}
