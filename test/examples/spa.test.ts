import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { startSpaServer, type SpaServer } from '../../examples/spa/serve.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { makeClient } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

/**
 * examples/spa, served from its own origin (another loopback port than the API), in Chromium: PKCE
 * sign-in through the real login page, the token exchange and the project list, all cross-origin.
 */
const env = useBrowserServer();
let spa: SpaServer;
let stranger: SpaServer;
let owner: TestUser;
const names = [`spa-alpha-${Date.now()}`, `spa-beta-${Date.now()}`];

beforeAll(async () => {
  const tokens = new Tokens(env.server);
  owner = await tokens.user('owner');
  const token = await tokens.accessToken(owner, 'write');
  for (const name of names) {
    const response = await fetch(`${env.server.url}/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    expect(response.status).toBe(201);
  }
  const port = await freePort();
  const { client } = await makeClient(env.server, {
    account_id: owner.accountId,
    client_name: 'My SPA',
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
  });
  spa = await startSpaServer({ slipwayUrl: env.server.url, clientId: client._id, port });
  // The same page on an origin no client registered.
  stranger = await startSpaServer({ slipwayUrl: env.server.url, clientId: client._id, port: 0 });
});
afterAll(async () => {
  await Promise.all([spa?.close(), stranger?.close()]);
});

describe('the SPA example in Chromium, on another origin than the API', () => {
  it('signs in with PKCE through the real pages and lists the projects', async () => {
    expect(new URL(spa.origin).port).not.toBe(new URL(env.server.url).port);
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      const seen: Promise<{ url: string; origin: string | undefined; allowOrigin: string | undefined; status: number }>[] = [];
      page.on('response', (response) => {
        const url = response.url();
        if (url.startsWith(`${env.server.url}/v1/`) || url.startsWith(`${env.server.issuer}/token`) || url.startsWith(`${env.server.issuer}/.well-known/`))
          seen.push(response.request().allHeaders().then((headers) => ({ url, origin: headers.origin, allowOrigin: response.headers()['access-control-allow-origin'], status: response.status() })));
      });
      const failures: string[] = [];
      page.on('requestfailed', (request) => failures.push(`${request.url()}: ${request.failure()?.errorText}`));

      await page.goto(spa.origin);
      await page.getByRole('button', { name: 'Sign in with Slipway' }).click();
      await page.waitForURL((u) => u.href.startsWith(`${env.server.issuer}/interaction/`));
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // A loopback redirect URI is a native app's: the consent page is shown (RFC 8252 §8.6).
      const allow = page.getByRole('button', { name: 'Allow' });
      await Promise.race([allow.waitFor({ timeout: 10_000 }).then(() => allow.click()), page.waitForURL((u) => u.href.startsWith(spa.origin), { timeout: 10_000 })]);
      await page.waitForURL((u) => u.href.startsWith(spa.origin));

      const items = page.getByRole('list', { name: 'Projects' }).getByRole('listitem');
      await expect.poll(async () => await items.allInnerTexts(), { timeout: 10_000 }).toEqual(expect.arrayContaining(names.map((n) => `${n} (active)`)));
      await expect.poll(() => page.locator('#status').innerText()).toBe('2 project(s)');
      // Exposed response headers are readable cross-origin.
      expect(await page.locator('#details').innerText()).toMatch(/^request [0-9a-f-]{36}, \d+ requests left this hour$/);
      expect(page.url()).toBe(`${spa.origin}/`);

      const apiCalls = await Promise.all(seen);
      const token = apiCalls.find((c) => c.url === `${env.server.issuer}/token`);
      const discovery = apiCalls.find((c) => c.url.startsWith(`${env.server.issuer}/.well-known/`));
      expect(discovery).toMatchObject({ origin: spa.origin, allowOrigin: spa.origin, status: 200 });
      const projects = apiCalls.find((c) => c.url.startsWith(`${env.server.url}/v1/projects`));
      expect(token).toMatchObject({ origin: spa.origin, allowOrigin: spa.origin, status: 200 });
      expect(projects).toMatchObject({ origin: spa.origin, allowOrigin: spa.origin, status: 200 });
      expect(failures).toEqual([]);

      const revocation = page.waitForResponse((r) => r.url() === `${env.server.issuer}/token/revocation`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      // The refresh token is revoked cross-origin (the public client's own origin is allowed there too).
      const revoked = await revocation;
      expect(revoked.status()).toBe(200);
      expect(revoked.headers()['access-control-allow-origin']).toBe(spa.origin);
      await expect.poll(() => page.locator('#status').innerText()).toBe('Signed out.');
      expect(await items.count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('a page on an origin no client registered cannot read /v1 (the browser blocks it)', async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(stranger.origin);
      const outcome = await page.evaluate(async (url) => {
        try {
          const response = await fetch(url, { headers: { Authorization: 'Bearer anything' } });
          return `read ${response.status}`;
        } catch (err) {
          return `${(err as Error).name}: ${(err as Error).message}`;
        }
      }, `${env.server.url}/v1/projects`);
      expect(outcome).toBe('TypeError: Failed to fetch');
    } finally {
      await context.close();
    }
  });
});
