/**
 * Which server and which credentials a command uses, and the SDK client made from them.
 *
 * Server: `--url`, else SLIPWAY_URL, else the one `slip login` signed in to last.
 * Credentials: SLIPWAY_TOKEN (an API key `slw_…` or any bearer token, for scripts), or a CI job's OIDC
 * token exchanged at the start of the command (SLIPWAY_OIDC_TOKEN, SLIPWAY_OIDC_TOKEN_FILE or
 * SLIPWAY_OIDC=github; see `ciSource`), else what `login` stored for that server: DPoP-bound OAuth tokens
 * (refreshed when they expire; the new set is stored) or a token stored with `login --with-token`.
 */
import { OAuthError, Slipway, SlipwayOAuth, exchangeCiToken, type CiTokenSource, type TokenSet } from '@slipway/sdk';
import { CliError, EXIT } from './errors.js';
import { findStored, readSettings, type CredentialStore, type StoredCredentials } from './store.js';

export const CLIENT_ID = 'slipway-cli';
export const USER_AGENT = 'slip/0.1.0';

export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`"${raw}" is not a URL (e.g. https://slipway.example.com).`, EXIT.usage);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError(`"${raw}" is not an http(s) URL.`, EXIT.usage);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

export function resolveUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const raw = flag ?? env.SLIPWAY_URL ?? readSettings(env).url;
  if (!raw) throw new CliError('Which Slipway? Pass --url, set SLIPWAY_URL, or sign in once with `slip login --url https://…`.', EXIT.usage);
  return normalizeUrl(raw);
}

/** The private JWK back to a key pair the SDK signs DPoP proofs with (private half not extractable again). */
export async function importDpopKey(jwk: JsonWebKey): Promise<CryptoKeyPair> {
  const { d: _private, ...publicJwk } = jwk;
  return {
    privateKey: await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']),
    publicKey: await crypto.subtle.importKey('jwk', { ...publicJwk, key_ops: ['verify'] }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']),
  };
}

export interface Connection {
  url: string;
  client: Slipway;
  /** Where the credentials come from, for `whoami`. */
  source: 'SLIPWAY_TOKEN' | 'oidc' | 'oauth' | 'token';
  /** source `oidc`: which variable the CI token came from, for `whoami`. */
  oidcFrom?: string;
  stored?: { store: CredentialStore; credentials: StoredCredentials };
}

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * The CI token to exchange, from at most one of SLIPWAY_OIDC_TOKEN (the JWT), SLIPWAY_OIDC_TOKEN_FILE (a
 * path) and SLIPWAY_OIDC=github (asked of GitHub Actions, for SLIPWAY_OIDC_AUDIENCE or the base URL);
 * undefined when none is set. Two at once, or with SLIPWAY_TOKEN, is a usage error: never a guess.
 */
export function ciSource(env: NodeJS.ProcessEnv = process.env): { source: CiTokenSource; from: string } | undefined {
  const given: { source: CiTokenSource; from: string }[] = [];
  if (set(env.SLIPWAY_OIDC_TOKEN)) given.push({ source: { token: env.SLIPWAY_OIDC_TOKEN }, from: 'SLIPWAY_OIDC_TOKEN' });
  if (set(env.SLIPWAY_OIDC_TOKEN_FILE)) given.push({ source: { tokenFile: env.SLIPWAY_OIDC_TOKEN_FILE }, from: 'SLIPWAY_OIDC_TOKEN_FILE' });
  if (set(env.SLIPWAY_OIDC)) {
    if (env.SLIPWAY_OIDC.trim().toLowerCase() !== 'github') throw new CliError(`SLIPWAY_OIDC must be "github" (got "${env.SLIPWAY_OIDC}"); for another CI, give its token in SLIPWAY_OIDC_TOKEN or SLIPWAY_OIDC_TOKEN_FILE.`, EXIT.usage);
    if (!set(env.ACTIONS_ID_TOKEN_REQUEST_URL) || !set(env.ACTIONS_ID_TOKEN_REQUEST_TOKEN)) {
      throw new CliError('SLIPWAY_OIDC=github, but ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set: give the job `permissions: id-token: write`.', EXIT.auth, 'ci_token_unavailable');
    }
    given.push({
      source: { github: { requestUrl: env.ACTIONS_ID_TOKEN_REQUEST_URL, requestToken: env.ACTIONS_ID_TOKEN_REQUEST_TOKEN }, ...(set(env.SLIPWAY_OIDC_AUDIENCE) ? { githubAudience: env.SLIPWAY_OIDC_AUDIENCE.trim() } : {}) },
      from: 'SLIPWAY_OIDC=github',
    });
  }
  if (given.length === 0) return undefined;
  const names = [...(set(env.SLIPWAY_TOKEN) ? ['SLIPWAY_TOKEN'] : []), ...given.map((g) => g.from)];
  if (names.length > 1) throw new CliError(`Credentials from ${names.join(' and ')} at once: set only one.`, EXIT.usage);
  return given[0];
}

/** Exchanges the CI token once (DPoP-bound to a key made for this run); a refusal is the server's error, exit 3. */
async function exchange(url: string, ci: { source: CiTokenSource; from: string }, project: string | undefined, env: NodeJS.ProcessEnv) {
  try {
    return await exchangeCiToken({
      baseUrl: url,
      ...ci.source,
      ...(project && /^proj_\w+$/.test(project) ? { project } : {}),
      ...(set(env.SLIPWAY_OIDC_SCOPE) ? { scope: env.SLIPWAY_OIDC_SCOPE.trim() } : {}),
    });
  } catch (err) {
    if (!(err instanceof OAuthError) || err.code === 'network_error') throw err;
    const refused = err.code === 'ci_token_unavailable' ? 'No CI token' : `${url} refused the CI token from ${ci.from}`;
    throw new CliError(`${refused}: ${err.message} (${err.code}).`, EXIT.auth, err.code);
  }
}

/** `project`: the command's --project, so a `proj_…` there (or in SLIPWAY_PROJECT) becomes the exchange's audience. */
export async function connect(urlFlag: string | undefined, env: NodeJS.ProcessEnv = process.env, project?: string): Promise<Connection> {
  const url = resolveUrl(urlFlag, env);
  const common = { baseUrl: url, headers: { 'user-agent': USER_AGENT }, maxRetries: 2 };
  const ci = ciSource(env);
  if (ci) {
    const { auth } = await exchange(url, ci, project ?? env.SLIPWAY_PROJECT, env);
    return { url, client: new Slipway({ ...common, auth }), source: 'oidc', oidcFrom: ci.from };
  }
  const token = env.SLIPWAY_TOKEN?.trim();
  if (token) {
    const client = token.startsWith('slw_') ? new Slipway({ ...common, apiKey: token }) : new Slipway({ ...common, accessToken: token });
    return { url, client, source: 'SLIPWAY_TOKEN' };
  }
  const stored = findStored(url, env);
  if (!stored) throw new CliError(`Not signed in to ${url}: run \`slip login --url ${url}\`, or set SLIPWAY_TOKEN.`, EXIT.auth, 'not_signed_in');
  const { credentials, store } = stored;
  if (credentials.kind === 'token' && credentials.token) {
    return { url, client: new Slipway({ ...common, accessToken: credentials.token }), source: 'token', stored };
  }
  if (credentials.kind !== 'oauth' || !credentials.tokens || !credentials.dpopKey) {
    throw new CliError(`The credentials stored for ${url} are incomplete: run \`slip login\` again.`, EXIT.auth, 'not_signed_in');
  }
  const oauth = new SlipwayOAuth({ baseUrl: url, clientId: credentials.clientId ?? CLIENT_ID, dpop: await importDpopKey(credentials.dpopKey) });
  const session = oauth.session(credentials.tokens as TokenSet, {
    // DPoP-bound refresh tokens do not rotate, but the new access token is kept for the next command.
    onTokens: (tokens) => store.save({ ...credentials, tokens, storedAt: new Date().toISOString() }),
  });
  return { url, client: new Slipway({ ...common, auth: session }), source: 'oauth', stored };
}
