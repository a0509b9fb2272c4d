import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import { answerWebCallback, authorizeInBrowser, buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';

const env = useBrowserServer();
let server: TestServer, browser: Browser;
beforeAll(() => ({ server, browser } = env));
// The test restarts the server: stop the one running at the end (stopping the first one again is harmless).
afterAll(async () => server?.stop());
/** A web client: its consent is remembered (native apps are asked every time). */
const WEB = { base: 'https://app.example.com', redirectUri: 'https://app.example.com/callback' };

/** Counts the authorization server pages the browser showed (login, consent), not the redirects. */
function shownInteractionPages(page: Page, base: string): string[] {
  const shown: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(`${base}/oauth/interaction/`)) shown.push(frame.url());
  });
  return shown;
}

async function authorizeInNewBrowser(config: oidc.Configuration, user: { email: string; password: string }) {
  const context: BrowserContext = await browser.newContext();
  try {
    const request = await buildPkceRequest(config, WEB.redirectUri, 'read write');
    const page = await context.newPage();
    await answerWebCallback(page, WEB.redirectUri);
    const shown = shownInteractionPages(page, server.url);
    const callbackUrl = await authorizeInBrowser(page, request.url, WEB.base, user);
    expect(await page.locator('body').innerText()).toBe('callback received');
    return { request, callbackUrl, shown };
  } finally {
    await context.close();
  }
}

describe('restart with the same database and keys', () => {
  it('keeps clients, refresh tokens, remembered consent and the keys that signed earlier access tokens', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { client } = await makeClient(server, { account_id: user.account_id, redirect_uris: [WEB.redirectUri] });
    const config = await discoverPublicClient(server.issuer, client._id);
    const audience = `${server.url}/v1`;

    const before = await authorizeInNewBrowser(config, user);
    expect(before.shown).toHaveLength(2); // login, consent
    const tokens = await oidc.authorizationCodeGrant(config, before.callbackUrl, {
      pkceCodeVerifier: before.request.verifier,
      expectedState: before.request.state,
    });
    expect(tokens.refresh_token).toBeTruthy();
    const { protectedHeader: signedWith } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${server.issuer}/jwks`)), {
      issuer: server.issuer,
      audience,
    });

    const issuer = server.issuer;
    server = await server.restart();
    expect(server.issuer).toBe(issuer);
    expect(server.logs.some((line) => line.includes('slipway listening'))).toBe(true);

    // The client is still registered: discovery and a token request by that client work.
    expect(await server.repos.oauthClients.findById(client._id)).toMatchObject({ _id: client._id, client_name: client.client_name });
    const configAfter = await discoverPublicClient(server.issuer, client._id);

    // An access token from before the restart verifies against the JWKS served after it.
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${server.issuer}/jwks`)), {
      issuer: server.issuer,
      audience,
      typ: 'at+jwt',
    });
    expect(protectedHeader.kid).toBe(signedWith.kid);
    expect(payload.sub).toBe(user._id);

    // The refresh token from before the restart still works (and rotates).
    const refreshed = await oidc.refreshTokenGrant(configAfter, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await jwtVerify(refreshed.access_token, createRemoteJWKSet(new URL(`${server.issuer}/jwks`)), { issuer: server.issuer, audience });

    // The same user in a new browser signs in again, and the remembered consent skips the consent page.
    const after = await authorizeInNewBrowser(configAfter, user);
    expect(after.shown).toHaveLength(1); // login only
    const again = await oidc.authorizationCodeGrant(configAfter, after.callbackUrl, {
      pkceCodeVerifier: after.request.verifier,
      expectedState: after.request.state,
    });
    expect(again.access_token).toBeTruthy();
  });
});
