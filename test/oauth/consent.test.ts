import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer, useCallbackServer } from '../support/fixtures.ts';
import { answerWebCallback, authorizeInBrowser, buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';

const env = useBrowserServer();
const callback = useCallbackServer();
let server: TestServer, browser: Browser;
beforeAll(() => ({ server, browser } = env));
/** A web client's redirect URI, answered inside the browser (see answerWebCallback). */
const WEB = { base: 'https://app.example.com', redirectUri: 'https://app.example.com/callback' };

/** Pages of the authorization server the browser actually showed (redirects in between are not shown). */
function shownInteractionPages(page: Page): string[] {
  const shown: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(`${server.url}/oauth/interaction/`)) shown.push(frame.url());
  });
  return shown;
}

/** A user and a public client: a web app (https redirect URI) unless `native`, which redirects to loopback. */
async function setup(overrides: { first_party?: boolean; client_name?: string; native?: boolean } = {}) {
  const { native = false, ...clientOverrides } = overrides;
  const target = native ? callback : WEB;
  const user = await makeUser(server, { role: 'developer' });
  const { client } = await makeClient(server, { account_id: user.account_id, redirect_uris: [target.redirectUri], ...clientOverrides });
  const config = await discoverPublicClient(server.issuer, client._id);
  return { user, client, config, target };
}

/** Runs one authorization in `context`; returns the callback URL and which server pages were shown. */
async function authorize(
  context: BrowserContext,
  { user, config, target }: Awaited<ReturnType<typeof setup>>,
  scope: string,
  decision: 'Allow' | 'Deny' = 'Allow',
) {
  const request = await buildPkceRequest(config, target.redirectUri, scope);
  const page = await context.newPage();
  await answerWebCallback(page, WEB.redirectUri);
  const shown = shownInteractionPages(page);
  try {
    const callbackUrl = await authorizeInBrowser(page, request.url, target.base, user, decision);
    expect(await page.locator('body').innerText()).toBe('callback received');
    return { request, callbackUrl, shown };
  } finally {
    await page.close();
  }
}

async function withContext<T>(fn: (context: BrowserContext) => Promise<T>): Promise<T> {
  const context = await browser.newContext();
  try {
    return await fn(context);
  } finally {
    await context.close();
  }
}

/** Opens the authorization URL, signs in if asked, and waits for the consent page. */
async function signInUntilConsent(context: BrowserContext, app: Awaited<ReturnType<typeof setup>>, url: URL): Promise<Page> {
  const page = await context.newPage();
  await answerWebCallback(page, WEB.redirectUri);
  await page.goto(url.href);
  if ((await page.locator('input[name="email"]').count()) > 0) {
    await page.getByLabel('Email').fill(app.user.email);
    await page.getByLabel('Password').fill(app.user.password);
    await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.getByRole('button', { name: 'Sign in' }).click()]);
  }
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  return page;
}

describe('consent page', () => {
  it('names the client and the scopes, offers Allow and Deny, and Deny redirects with error=access_denied', async () => {
    const app = await setup({ client_name: 'Deploy Dashboard' });
    await withContext(async (context) => {
      const request = await buildPkceRequest(app.config, app.target.redirectUri, 'read write');
      const page = await signInUntilConsent(context, app, request.url);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Authorize Deploy Dashboard');
      const scopes = await page.locator('ul.scopes li code').allInnerTexts();
      expect(scopes.sort()).toEqual(['read', 'write']);
      expect(await page.locator('body').innerText()).toContain(app.user.email);
      expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(1);

      await Promise.all([page.waitForURL((u) => u.href.startsWith(WEB.base)), page.getByRole('button', { name: 'Deny' }).click()]);
      expect(await page.locator('body').innerText()).toBe('callback received');
      const denied = new URL(page.url());
      expect(`${denied.origin}${denied.pathname}`).toBe(WEB.redirectUri);
      expect(denied.searchParams.get('error')).toBe('access_denied');
      expect(denied.searchParams.get('state')).toBe(request.state);
      expect(denied.searchParams.get('iss')).toBe(server.issuer);
      expect(denied.searchParams.get('code')).toBeNull();
      await expect(
        oidc.authorizationCodeGrant(app.config, denied, { pkceCodeVerifier: request.verifier, expectedState: request.state }),
      ).rejects.toMatchObject({ error: 'access_denied' });

      // A denial is not remembered: still signed in, the only page shown next time is the consent page.
      const again = await authorize(context, app, 'read', 'Allow');
      expect(again.shown).toHaveLength(1);
      expect(again.callbackUrl.searchParams.get('code')).toBeTruthy();
    });
  });

  it('is never shown for a first-party client', async () => {
    const app = await setup({ first_party: true });
    await withContext(async (context) => {
      const { request, callbackUrl, shown } = await authorize(context, app, 'read write', 'Deny');
      // Only the login page was shown: no consent page, so "Deny" was never there to press.
      expect(shown).toHaveLength(1);
      const tokens = await oidc.authorizationCodeGrant(app.config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
      expect(decodeJwt(tokens.access_token).scope).toBe('read write');
    });
  });

  it('is remembered per user and client: a new browser needs a login but no consent', async () => {
    const app = await setup();
    const first = await withContext((context) => authorize(context, app, 'read'));
    expect(first.shown).toHaveLength(2); // login, consent

    await withContext(async (context) => {
      const second = await authorize(context, app, 'read');
      expect(second.shown).toHaveLength(1); // login only
      const tokens = await oidc.authorizationCodeGrant(app.config, second.callbackUrl, {
        pkceCodeVerifier: second.request.verifier,
        expectedState: second.request.state,
      });
      expect(decodeJwt(tokens.access_token).scope).toBe('read');
      expect(decodeJwt(tokens.access_token).sub).toBe(app.user._id);

      // Consent covers the scopes given, not more: asking for write as well shows the consent page for write.
      const request = await buildPkceRequest(app.config, app.target.redirectUri, 'read write');
      const page = await signInUntilConsent(context, app, request.url);
      expect(await page.locator('ul.scopes li code').allInnerTexts()).toEqual(['write']);
    });

    // Another user of the same client still has to consent.
    const other = { ...app, user: await makeUser(server, { account_id: app.user.account_id, role: 'developer' }) };
    const otherFlow = await withContext((context) => authorize(context, other, 'read'));
    expect(otherFlow.shown).toHaveLength(2);
  });

  it('is asked again on every authorization of a native app (loopback redirect), as RFC 8252 §8.6 advises', async () => {
    const app = await setup({ native: true });
    await withContext(async (context) => {
      const first = await authorize(context, app, 'read');
      expect(first.shown).toHaveLength(2); // login, consent
      // Anyone can listen on a loopback port, so a signed-in user confirms every authorization.
      const second = await authorize(context, app, 'read', 'Deny');
      expect(second.shown).toHaveLength(1);
      expect(second.callbackUrl.searchParams.get('error')).toBe('access_denied');
    });
  });
});
