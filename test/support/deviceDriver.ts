import { CookieJar } from './oauthDriver.ts';

/*
 * The device authorization grant (RFC 8628) driven over plain HTTP: what the CLI does (ask for a code)
 * and what the person does in a browser (open the link, check the code, Allow or Deny, sign in), through
 * the real pages with a cookie jar, the way oauthDriver.ts drives the authorization code flow.
 */

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** POST /oauth/device/auth as the CLI does (a public client: `client_id` in the body). */
export async function requestDeviceCode(
  base: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: DeviceAuthorization & { error?: string } }> {
  const res = await fetch(`${base}/oauth/device/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as DeviceAuthorization & { error?: string } };
}

/** A page the browser was shown: its status, URL and markup. */
export interface Page {
  status: number;
  url: URL;
  html: string;
  headers: Headers;
}

/** The forms of a page: each one's action (resolved) and every named input with its value. */
export function formsOf(page: Page): { action: URL; fields: Record<string, string>; buttons: string[]; markup: string }[] {
  return [...page.html.matchAll(/<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => {
    const markup = m[2] ?? '';
    const fields: Record<string, string> = {};
    for (const input of markup.matchAll(/<input\b([^>]*)>/g)) {
      const name = /\bname="([^"]*)"/.exec(input[1]!)?.[1];
      if (name) fields[name] = (/\bvalue="([^"]*)"/.exec(input[1]!)?.[1] ?? '').replace(/&amp;/g, '&');
    }
    const buttons = [...markup.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/g)].map((b) => b[1]!.replace(/<[^>]+>/g, '').trim());
    return { action: new URL(m[1]!.replace(/&amp;/g, '&'), page.url), fields, buttons, markup };
  });
}

/** A browser: one cookie jar, and every request from one source (`X-Forwarded-For`, the test's proxy is trusted). */
export class DeviceBrowser {
  readonly jar = new CookieJar();
  readonly #base: string;
  readonly #source: string;

  constructor(base: string, source: string) {
    this.#base = base;
    this.#source = source;
  }

  /** GET or POST (a form) `target` on this browser's server, following redirects; the page it ends on. */
  async open(target: string | URL, form?: Record<string, string>): Promise<Page> {
    let url = new URL(target, this.#base);
    // Instances share PUBLIC_URL: links name it, this browser talks to its own instance.
    url = new URL(`${url.pathname}${url.search}`, this.#base);
    let init: RequestInit = form
      ? { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() }
      : { method: 'GET' };
    for (let hop = 0; hop < 10; hop++) {
      const res = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string> | undefined), cookie: this.jar.header(url.pathname), 'x-forwarded-for': this.#source },
      });
      this.jar.store(res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        const next = new URL(location, url);
        url = new URL(`${next.pathname}${next.search}`, this.#base);
        init = { method: 'GET' };
        continue;
      }
      return { status: res.status, url, html: await res.text(), headers: res.headers };
    }
    throw new Error('too many redirects');
  }

  /** Submits the form of `page` that has the button `label` (its own name and value sent too). */
  async press(page: Page, label: string, extra: Record<string, string> = {}): Promise<Page> {
    const form = formsOf(page).find((f) => f.buttons.includes(label));
    if (!form) throw new Error(`no "${label}" button on ${page.url.pathname} (${page.status}): ${text(page).slice(0, 200)}`);
    const button = [...form.markup.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/g)].find((b) => b[2]!.replace(/<[^>]+>/g, '').trim() === label)!;
    const name = /\bname="([^"]*)"/.exec(button[1]!)?.[1];
    const value = /\bvalue="([^"]*)"/.exec(button[1]!)?.[1] ?? '';
    return await this.open(form.action, { ...form.fields, ...(name ? { [name]: value } : {}), ...extra });
  }
}

/** The visible text of a page, in one line. */
export function text(page: Page): string {
  return page.html.replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/\s+/g, ' ').trim();
}

export interface Approval {
  /** The code form, as the link opened it (filled in). */
  codeForm: Page;
  /** The page with Allow and Deny. */
  confirm: Page;
  /** Where it ended: the success page, or the denied one. */
  done: Page;
}

/**
 * What the person does: opens the device's link, sends the code as filled in, then presses `decision`
 * on the confirm page; after Allow, signs in with `email` and `password` (pressing `account` on the
 * account chooser if shown).
 */
export async function approveDevice(
  browser: DeviceBrowser,
  link: string,
  person: { email: string; password: string; account?: string },
  decision: 'Allow' | 'Deny' = 'Allow',
): Promise<Approval> {
  const codeForm = await browser.open(link);
  const confirm = await browser.press(codeForm, 'Continue');
  let page = await browser.press(confirm, decision);
  for (let step = 0; step < 4 && decision === 'Allow'; step++) {
    const forms = formsOf(page);
    if (forms.some((f) => 'password' in f.fields)) page = await browser.press(page, 'Sign in', { email: person.email, password: person.password });
    else if (person.account && forms.some((f) => f.markup.includes(`value="${person.account}"`))) {
      const chooser = forms.find((f) => f.markup.includes(`value="${person.account}"`))!;
      page = await browser.open(chooser.action, { account: person.account });
    } else if (forms.some((f) => f.buttons.includes('Allow'))) page = await browser.press(page, 'Allow');
    else break;
  }
  return { codeForm, confirm, done: page };
}
