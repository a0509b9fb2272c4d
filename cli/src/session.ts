/**
 * Which server and which credentials a command uses, and the SDK client made from them.
 *
 * Server: `--url`, else SLIPWAY_URL, else the one `slip login` signed in to last.
 * Credentials: SLIPWAY_TOKEN (an API key `slw_…` or any bearer token, for scripts), else what `login`
 * stored for that server: DPoP-bound OAuth tokens (refreshed when they expire; the new set is stored)
 * or a token stored with `login --with-token`.
 */
import { Slipway, SlipwayOAuth, type TokenSet } from '@slipway/sdk';
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
  source: 'SLIPWAY_TOKEN' | 'oauth' | 'token';
  stored?: { store: CredentialStore; credentials: StoredCredentials };
}

export async function connect(urlFlag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  const url = resolveUrl(urlFlag, env);
  const common = { baseUrl: url, headers: { 'user-agent': USER_AGENT }, maxRetries: 2 };
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
