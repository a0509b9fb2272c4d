import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';

export interface CallbackServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** `${base}/callback` */
  redirectUri: string;
  close(): Promise<void>;
}

/** A stand-in for the client application's redirect endpoint: it answers every request with 200. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('callback received');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    redirectUri: `${base}/callback`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** openid-client configured for a public client of the test server (plain http on loopback allowed). */
export async function discoverPublicClient(issuer: string, clientId: string, algorithm: 'oidc' | 'oauth2' = 'oidc') {
  return await oidc.discovery(new URL(issuer), clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
    algorithm,
  });
}

export async function discoverConfidentialClient(issuer: string, clientId: string, secret: string) {
  return await oidc.discovery(new URL(issuer), clientId, undefined, oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests],
  });
}

export interface PkceRequest {
  url: URL;
  verifier: string;
  state: string;
}

export async function buildPkceRequest(config: oidc.Configuration, redirectUri: string, scope: string, extra: Record<string, string> = {}): Promise<PkceRequest> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url, verifier, state };
}

/**
 * Drives the real login and consent pages in the browser until the authorization server redirects to
 * the callback; returns the callback URL. `consent` decides which button is pressed if asked.
 */
export async function authorizeInBrowser(
  page: Page,
  url: URL,
  callbackBase: string,
  user: { email: string; password: string } | undefined,
  consent: 'Allow' | 'Deny' = 'Allow',
): Promise<URL> {
  await page.goto(url.href);
  const atCallback = () => page.url().startsWith(callbackBase);
  if (!atCallback() && user && (await page.locator('input[name="email"]').count()) > 0) {
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
  }
  if (!atCallback() && (await page.getByRole('button', { name: consent }).count()) > 0) {
    await page.getByRole('button', { name: consent }).click();
  }
  try {
    await page.waitForURL((u) => u.href.startsWith(callbackBase), { timeout: 10_000 });
  } catch (err) {
    const text = (await page.locator('body').innerText().catch(() => '')).slice(0, 500);
    throw new Error(`never reached the callback; stuck at ${page.url()}: ${text}`, { cause: err });
  }
  return new URL(page.url());
}

/**
 * Stands in for a web client's https redirect URI in one browser page: the browser gets a 200 for it, with
 * no DNS lookup or connection. (Playwright's own routing does not see the redirect that leads there, so
 * this uses Chromium's Fetch domain.) Clients whose redirect URIs are loopback http are native apps,
 * which oidc-provider asks for consent on every authorization (RFC 8252 §8.6); web clients have their
 * consent remembered.
 */
export async function answerWebCallback(page: Page, redirectUri: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${new URL(redirectUri).origin}/*`, requestStage: 'Request' }] });
  cdp.on('Fetch.requestPaused', ({ requestId }) => {
    void cdp.send('Fetch.fulfillRequest', {
      requestId,
      responseCode: 200,
      responseHeaders: [{ name: 'content-type', value: 'text/plain' }],
      body: Buffer.from('callback received').toString('base64'),
    });
  });
}
