import { sha256Hex } from '../../src/lib/hash.ts';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer, useCallbackServer } from '../support/fixtures.ts';
import { buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

const env = useBrowserServer();
const callback = useCallbackServer();
let server: TestServer, browser: Browser;
let user: Awaited<ReturnType<typeof makeUser>>;
let config: Awaited<ReturnType<typeof discoverPublicClient>>;

beforeAll(async () => {
  ({ server, browser } = env);
  user = await makeUser(server);
  const { client } = await makeClient(server, { account_id: user.account_id, client_name: 'Pages Test App', redirect_uris: [callback.redirectUri] });
  config = await discoverPublicClient(server.issuer, client._id);
});

/** A fresh browser on the login page of a new authorization request; the response is the page's own. */
async function openLoginPage() {
  const request = await buildPkceRequest(config, callback.redirectUri, 'read');
  const page = await browser.newPage();
  const response = await page.goto(request.url.href);
  expect(page.url()).toMatch(new RegExp(`^${server.url}/oauth/interaction/[\\w-]+$`));
  return { page, response: response!, action: `${page.url()}/login` };
}

/** Submits the login form through the browser; returns the status of the page it answered with. */
async function submitLogin(page: Page, email: string, password: string): Promise<number> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/login')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.waitForLoadState('load');
  return response.status();
}

/** What a page must never show: framework internals, stack traces, error class names. */
function expectNoInternals(text: string) {
  expect(text).not.toMatch(/Error:|SessionNotFound|InvalidRequest|\bat \S+ \(|node_modules|\.js:\d+|\.ts:\d+/);
}

describe('login page', () => {
  it('has email and password fields with labels, and cannot be framed', async () => {
    const { page, response } = await openLoginPage();
    try {
      expect(response.status()).toBe(200);
      const headers = response.headers();
      expect(headers['content-type']).toMatch(/^text\/html/);
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['cache-control']).toContain('no-store');

      expect(await page.getByLabel('Email').getAttribute('name')).toBe('email');
      expect(await page.getByLabel('Password').getAttribute('name')).toBe('password');
      expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
      const names = await Promise.all((await page.locator('form input').all()).map((input) => input.getAttribute('name')));
      expect(names).toEqual(['email', 'password']);
      expect(await page.locator('body').innerText()).toContain('Pages Test App');
    } finally {
      await page.close();
    }
  });

  it('shows the same generic message with 401 for a wrong password and for an unknown email', async () => {
    const { page } = await openLoginPage();
    try {
      expect(await submitLogin(page, user.email, 'not the password')).toBe(401);
      const wrongPassword = await page.getByRole('alert').innerText();

      expect(await submitLogin(page, 'nobody-here@example.com', 'not the password')).toBe(401);
      const unknownEmail = await page.getByRole('alert').innerText();

      expect(wrongPassword).toBe('The email or password is not correct.');
      expect(unknownEmail).toBe(wrongPassword);
      // Still the login form, for the same authorization request.
      expect(page.url()).toMatch(/\/oauth\/interaction\/[\w-]+\/login$/);
      expect(await page.getByLabel('Password').inputValue()).toBe('');
    } finally {
      await page.close();
    }
  });

  it('answers the 11th attempt within a minute for one email with 429 and Retry-After', async () => {
    const bystander = await makeUser(server);
    const { page, action } = await openLoginPage();
    const attempt = (email: string, password: string) => page.request.post(action, { form: { email, password }, maxRedirects: 0 });
    const minute = () => Math.floor(Date.now() / 60_000);
    try {
      for (let round = 1; ; round++) {
        const target = await makeUser(server);
        const startedIn = minute();
        // Sent in parallel, as an attacker would: the count must not lose any of them.
        const first10 = await race(10, () => attempt(target.email, 'wrong password'));
        const eleventh = await attempt(target.email, 'wrong password');
        const rightPassword = await attempt(target.email, target.password);
        // The limit counts per fixed minute; if one ended mid-way the count restarted, so try once more.
        if (minute() !== startedIn && round === 1) continue;

        expect(first10.map((r) => r.status())).toEqual(Array(10).fill(401));
        expect(eleventh.status()).toBe(429);
        const retryAfter = Number(eleventh.headers()['retry-after']);
        expect(Number.isInteger(retryAfter)).toBe(true);
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(eleventh.headers()['content-type']).toMatch(/^text\/html/);
        expect(await eleventh.text()).toContain('Too many sign-in attempts');
        // The right password does not get through the limit either.
        expect(rightPassword.status()).toBe(429);
        break;
      }
      // Another email is not affected: the limit is per email (per IP it is 30).
      expect((await attempt(bystander.email, 'wrong password')).status()).toBe(401);
    } finally {
      await page.close();
    }
  });
});

describe('interactions that do not exist or have expired', () => {
  it('shows a friendly 400 page for /oauth/interaction/<random>', async () => {
    const res = await fetch(`${server.url}/oauth/interaction/${'x'.repeat(43)}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).toContain('<h1>This sign-in has expired</h1>');
    expect(html).toContain('Go back to the application and start again.');
    expectNoInternals(html);

    const post = await fetch(`${server.url}/oauth/interaction/${'x'.repeat(43)}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: user.email, password: user.password }),
      redirect: 'manual',
    });
    expect(post.status).toBe(400);
    expect(await post.text()).toContain('This sign-in has expired');
  });

  it('shows a friendly 400 page for an interaction that expired while the login page was open', async () => {
    const { page } = await openLoginPage();
    try {
      const uid = new URL(page.url()).pathname.split('/').pop()!;
      const db = server.running.container.database.db;
      const { matchedCount } = await db.collection('oidc_interaction').updateOne({ _id: sha256Hex(uid) as never }, { $set: { expires_at: new Date(Date.now() - 1000) } });
      expect(matchedCount).toBe(1);

      expect(await submitLogin(page, user.email, user.password)).toBe(400);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('This sign-in has expired');
      expectNoInternals(await page.locator('body').innerText());

      const reload = await page.goto(page.url().replace(/\/login$/, ''));
      expect(reload!.status()).toBe(400);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('This sign-in has expired');
    } finally {
      await page.close();
    }
  });

  it('shows the friendly page when the interaction belongs to another browser request', async () => {
    const first = await openLoginPage();
    const second = await openLoginPage();
    try {
      // The first browser opens the second browser's interaction: its cookie does not match.
      const res = await first.page.goto(second.page.url());
      expect(res!.status()).toBe(400);
      expect(await first.page.getByRole('heading', { level: 1 }).innerText()).toBe('This sign-in has expired');
    } finally {
      await Promise.all([first.page.close(), second.page.close()]);
    }
  });
});
