import { createHash, randomBytes } from 'node:crypto';

/**
 * The authorization code flow with PKCE driven over plain HTTP, the way a browser would: GET
 * /authorize, post the login form, press Allow, follow every redirect with a cookie jar, then exchange
 * the code. No browser is needed, so tests and the benchmark (bench/) can mint real refresh tokens quickly.
 */

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/** Just enough of a cookie jar for one loopback origin: name, value and path; expired cookies are dropped. */
export class CookieJar {
  #cookies = new Map<string, StoredCookie>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let cookiePath = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path' && val) cookiePath = val;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      }
      const id = `${name};${cookiePath}`;
      if (expired) this.#cookies.delete(id);
      else this.#cookies.set(id, { name, value, path: cookiePath });
    }
  }

  header(pathname: string): string {
    return [...this.#cookies.values()]
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

export interface AuthorizeOptions {
  /** `{base_url}/oauth` */
  issuer: string;
  clientId: string;
  /** Present for confidential clients (client_secret_basic); absent for public clients. */
  clientSecret?: string;
  redirectUri: string;
  scope: string;
  email: string;
  password: string;
  /** Sent as X-Request-Id on every request (tests use it to find their log lines). */
  requestId?: string;
  /** Sees every page the authorization server shows on the way (login, account chooser, consent). */
  onPage?: (html: string, url: URL) => void;
  /** The account to press on the account chooser, if it is shown (a person with several accounts). */
  account?: string;
  /** Extra authorization request parameters (`account_hint`). */
  extraParams?: Record<string, string>;
}

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

export class AuthorizeError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'AuthorizeError';
    this.status = status;
  }
}

export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The `action` of the form whose markup contains `marker`, resolved against the page URL. */
function formAction(html: string, marker: RegExp, pageUrl: string): string | undefined {
  for (const match of html.matchAll(/<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
    if (marker.test(match[2] ?? '')) return new URL(match[1]!.replace(/&amp;/g, '&'), pageUrl).href;
  }
  return undefined;
}

/**
 * Signs in and allows access, returning the callback URL the server redirected to (with `code`,
 * `state` and `iss`). The same jar can be passed again: a signed-in session with remembered consent
 * goes straight to the callback.
 */
export async function authorizeOverHttp(options: AuthorizeOptions, jar = new CookieJar()): Promise<{ callback: URL; verifier: string; state: string }> {
  const { verifier, challenge } = pkce();
  const state = randomBytes(12).toString('base64url');
  const authorize = new URL(`${options.issuer}/authorize`);
  authorize.search = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    response_type: 'code',
    scope: options.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...options.extraParams,
  }).toString();

  const { callback } = await driveAuthorization(authorize, options, jar);
  return { callback, verifier, state };
}

/**
 * Opens a sign-in as a browser would: a new authorization request (code, PKCE S256) followed to the
 * interaction page, whose URL (`/oauth/interaction/<uid>`) is returned; the jar keeps its cookies.
 * `headers` go with every hop (an `X-Forwarded-For` written as a trusted proxy would).
 */
export async function openInteraction(
  options: { issuer: string; clientId: string; redirectUri: string; scope?: string; headers?: Record<string, string> },
  jar = new CookieJar(),
): Promise<URL> {
  let url = new URL(`${options.issuer}/authorize`);
  url.search = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    response_type: 'code',
    scope: options.scope ?? 'read',
    state: randomBytes(8).toString('hex'),
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  }).toString();
  for (let hop = 0; hop < 5 && !url.pathname.startsWith('/oauth/interaction/'); hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url.pathname), ...options.headers } });
    jar.store(res);
    await res.body?.cancel();
    url = new URL(res.headers.get('location')!, url);
  }
  if (!/^\/oauth\/interaction\/[^/]+$/.test(url.pathname)) throw new AuthorizeError(`no interaction page: ended at ${url.pathname}`);
  return url;
}

/**
 * Follows an authorization request (any parameters: built by hand or by openid-client, or a PAR
 * `request_uri`) through login and consent to the callback. `loginShown`: whether the login form was
 * asked for (false when the jar's session was still signed in); `consentPage`: the consent page's HTML, if one was shown.
 */
export async function driveAuthorization(
  authorize: URL,
  options: Pick<AuthorizeOptions, 'redirectUri' | 'email' | 'password' | 'requestId' | 'onPage' | 'account'>,
  jar = new CookieJar(),
): Promise<{ callback: URL; loginShown: boolean; consentPage?: string }> {
  const headers = (url: URL): Record<string, string> => {
    const cookie = jar.header(url.pathname);
    return { ...(cookie ? { cookie } : {}), ...(options.requestId ? { 'x-request-id': options.requestId } : {}) };
  };
  let url = authorize;
  let init: RequestInit = { method: 'GET' };
  let submittedLogin = false;
  let consentPage: string | undefined;
  // login page, login post, resume, consent page, consent post, resume: a handful of hops at most.
  for (let hop = 0; hop < 12; hop += 1) {
    const response = await fetch(url, { ...init, headers: { ...headers(url), ...(init.headers as Record<string, string> | undefined) }, redirect: 'manual' });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(options.redirectUri)) {
        if (next.searchParams.get('error')) throw new AuthorizeError(`authorization failed: ${next.searchParams.get('error')}: ${next.searchParams.get('error_description') ?? ''}`);
        return { callback: next, loginShown: submittedLogin, ...(consentPage ? { consentPage } : {}) };
      }
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new AuthorizeError(`unexpected ${response.status} from ${url.pathname}: ${html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 200)}`, response.status);
    options.onPage?.(html, url);
    const login = formAction(html, /name="password"/, url.href);
    const allow = formAction(html, />\s*Allow\s*</, url.href);
    const chooser = formAction(html, /name="account"/, url.href);
    if (chooser && options.account) {
      url = new URL(chooser);
      init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ account: options.account }).toString() };
    } else if (login && !submittedLogin) {
      submittedLogin = true;
      url = new URL(login);
      init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: options.email, password: options.password }).toString() };
    } else if (allow) {
      consentPage = html;
      url = new URL(allow);
      init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=allow' };
    } else {
      throw new AuthorizeError(`stuck at ${url.pathname}: neither a login form, an account to choose nor an Allow button`, response.status);
    }
  }
  throw new AuthorizeError('too many redirects while authorizing');
}

/** POSTs a form to the token endpoint, authenticating with Basic for confidential clients. */
export async function tokenRequest(issuer: string, client: { clientId: string; clientSecret?: string }, form: Record<string, string>): Promise<TokenResponse> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client.clientSecret ? { authorization: basicAuth(client.clientId, client.clientSecret) } : {}),
    },
    body: new URLSearchParams(client.clientSecret ? form : { ...form, client_id: client.clientId }).toString(),
  });
  const body = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (response.status !== 200) throw new AuthorizeError(`token endpoint: ${response.status} ${body.error ?? ''} ${body.error_description ?? ''}`.trim(), response.status);
  return body;
}

/** Signs in, allows, and exchanges the code: the tokens a real client application would hold. */
export async function obtainTokens(options: AuthorizeOptions, jar = new CookieJar()): Promise<TokenResponse> {
  const { callback, verifier, state } = await authorizeOverHttp(options, jar);
  if (callback.searchParams.get('state') !== state) throw new AuthorizeError('state mismatch in the authorization response');
  const code = callback.searchParams.get('code');
  if (!code) throw new AuthorizeError('no code in the authorization response');
  const client = { clientId: options.clientId, ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}) };
  return await tokenRequest(options.issuer, client, { grant_type: 'authorization_code', code, redirect_uri: options.redirectUri, code_verifier: verifier });
}
