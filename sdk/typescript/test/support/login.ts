/**
 * What a user's browser does on Slipway's server-rendered pages, over plain HTTP with a cookie jar:
 * GET the authorization URL, follow redirects to /oauth/interaction/…, post the `email`/`password`
 * form, press `Allow` on the consent page, and stop at the redirect to the app's redirect URI.
 */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

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
      if (expired) this.#cookies.delete(`${name};${cookiePath}`);
      else this.#cookies.set(`${name};${cookiePath}`, { name, value, path: cookiePath });
    }
  }

  header(pathname: string): string {
    return [...this.#cookies.values()]
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

function formAction(html: string, marker: RegExp, pageUrl: string): string | undefined {
  for (const match of html.matchAll(/<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
    if (marker.test(match[2] ?? '')) return new URL(match[1]!.replace(/&amp;/g, '&'), pageUrl).href;
  }
  return undefined;
}

export interface LoginTrace {
  /** The URL the server redirected the browser to (the app's redirect URI with code, state, iss). */
  callback: URL;
  /** Paths of the pages seen, in order. */
  pages: string[];
}

export async function loginThroughPages(authorizationUrl: string, credentials: { email: string; password: string }, redirectUri: string, jar = new CookieJar()): Promise<LoginTrace> {
  let url = new URL(authorizationUrl);
  let init: RequestInit = { method: 'GET' };
  const pages: string[] = [];
  let loggedIn = false;
  for (let hop = 0; hop < 15; hop += 1) {
    const cookie = jar.header(url.pathname);
    const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) }, redirect: 'manual' });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return { callback: next, pages };
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`unexpected ${response.status} at ${url.pathname}: ${html.slice(0, 300)}`);
    const login = formAction(html, /name="password"/, url.href);
    const allow = formAction(html, /value="allow"/, url.href);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    if (login && !loggedIn) {
      pages.push('login');
      loggedIn = true;
      url = new URL(login);
      init = { method: 'POST', headers: form, body: new URLSearchParams(credentials).toString() };
    } else if (allow) {
      pages.push('consent');
      url = new URL(allow);
      init = { method: 'POST', headers: form, body: 'decision=allow' };
    } else {
      throw new Error(`stuck at ${url.pathname}: no login form and no Allow button`);
    }
  }
  throw new Error('too many redirects');
}
