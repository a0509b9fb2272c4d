import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as Sdk from '../src/index.ts';
import { Slipway } from '../src/index.ts';
import { harness, login, redirectUri, unique } from './support/env.ts';
import { CookieJar, loginThroughPages } from './support/login.ts';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

let browser: Browser | undefined;
beforeAll(async () => {
  // dist/ is built by scripts/test.sh before the suite: rebuilding it here would rewrite files other test files import meanwhile.
  if (!existsSync(path.join(PACKAGE_DIR, 'dist', 'index.js'))) throw new Error('dist/ is not built: run `npm run build` (scripts/test.sh does)');
  if (!CHROMIUM) throw new Error("Chromium not found: install Debian's `chromium` package or set CHROMIUM_PATH");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
});
afterAll(async () => {
  await browser?.close();
});

async function openSdkPage(info: ReturnType<typeof harness>) {
  const page = await browser!.newPage();
  // The built files are served at the API's own origin (so /v1 is same-origin); everything else reaches the real server.
  await page.route(`${info.base_url}/__sdk/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/__sdk/index.html') {
      const importMap = JSON.stringify({ imports: { oauth4webapi: '/__sdk/oauth4webapi.js' } });
      return await route.fulfill({ contentType: 'text/html', body: `<!doctype html><script type="importmap">${importMap}</script><title>sdk</title>` +
          `<script type="module">import * as sdk from '/__sdk/dist/index.js'; window.slipwaySdk = sdk;</script>` });
    }
    const file =
      url.pathname === '/__sdk/oauth4webapi.js'
        ? path.join(PACKAGE_DIR, 'node_modules', 'oauth4webapi', 'build', 'index.js')
        : path.join(PACKAGE_DIR, 'dist', path.normalize(url.pathname.replace(/^\/__sdk\/dist\//, '')));
    if (!file.startsWith(PACKAGE_DIR) || !existsSync(file)) return await route.fulfill({ status: 404, body: 'not found' });
    return await route.fulfill({ contentType: 'text/javascript', body: await readFile(file, 'utf8') });
  });
  await page.goto(`${info.base_url}/__sdk/index.html`);
  await page.waitForFunction(() => 'slipwaySdk' in window, undefined, { timeout: 20_000 });
  return page;
}

it('the built package runs in a browser: API-key calls against the live server, typed errors, the PKCE URL, webhook verification', async () => {
  const info = harness();
  const page = await openSdkPage(info);

  const result = await page.evaluate(
    async ({ key, projectId, clientId, redirect }) => {
      const sdk = (window as unknown as { slipwaySdk: typeof Sdk }).slipwaySdk;
      const client = new sdk.Slipway({ baseUrl: location.origin, apiKey: key });
      const project = await client.projects.get(projectId);
      const deployment = await client.deployments.create(projectId, { environment: 'browser', branch: 'main' });
      let notFound: unknown;
      try {
        await client.projects.get('proj_missing');
      } catch (err) {
        notFound = { isNotFound: err instanceof sdk.NotFoundError, code: (err as { code: string }).code, requestId: (err as { requestId: string }).requestId };
      }
      const oauth = new sdk.SlipwayOAuth({ baseUrl: location.origin, clientId, redirectUri: redirect });
      const request = await oauth.authorizationUrl({ scope: 'read' });
      const secret = 'whsec_browser';
      const t = Math.floor(Date.now() / 1000);
      const body = '{"type":"project.created"}';
      const keyMaterial = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', keyMaterial, new TextEncoder().encode(`${t}.${body}`)));
      const hex = Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
      const verified = await sdk.verifyWebhookSignature({ payload: body, header: `t=${t},v1=${hex}`, secret });
      return { projectId: project.id, deploymentStatus: deployment.status, notFound, authorizationUrl: request.url, verified, userAgent: navigator.userAgent };
    },
    { key: info.api_key.key, projectId: info.api_key.project_id, clientId: info.public_client.client_id, redirect: redirectUri(info) },
  );
  await page.close();

  expect(result.userAgent).toContain('Chrome');
  expect(result.projectId).toBe(info.api_key.project_id);
  expect(result.deploymentStatus).toBe('queued');
  expect(result.notFound).toMatchObject({ isNotFound: true, code: 'not_found' });
  const url = new URL(result.authorizationUrl);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('state')).toBeTruthy();
  expect(result.verified).toBe(true);
});

it('DPoP in a browser: a non-extractable key, kept in IndexedDB, binds the tokens; /v1 calls and a refresh after a reload work with it', async () => {
  const info = harness();
  // A single-page app served at the server's origin: its redirect URI's origin may call /oauth/token (CORS).
  const admin = new Slipway({ baseUrl: info.base_url, accessToken: (await login(info, 'read write admin')).accessToken, maxRetries: 0 });
  const redirect = `${info.base_url}/__sdk/callback`;
  const app = await admin.oauthClients.create({ client_name: unique('browser DPoP'), redirect_uris: [redirect] });
  const page = await openSdkPage(info);
  const args = { clientId: app.client_id, redirect };
  const started = await page.evaluate(async ({ clientId, redirect }) => {
    const sdk = (window as unknown as { slipwaySdk: typeof Sdk }).slipwaySdk;
    const oauth = new sdk.SlipwayOAuth({ baseUrl: location.origin, clientId, redirectUri: redirect, dpop: true });
    (window as unknown as { oauth: Sdk.SlipwayOAuth }).oauth = oauth;
    return await oauth.authorizationUrl({ scope: 'read' });
  }, args);
  const { callback } = await loginThroughPages(started.url, info.owner, redirect, new CookieJar());
  const signedIn = await page.evaluate(
    async ({ callbackUrl, request }) => {
      const sdk = (window as unknown as { slipwaySdk: typeof Sdk }).slipwaySdk;
      const oauth = (window as unknown as { oauth: Sdk.SlipwayOAuth }).oauth;
      const tokens = await oauth.exchangeCode(callbackUrl, request);
      const me = await new sdk.Slipway({ baseUrl: location.origin, auth: oauth.session(tokens) }).users.me();
      const keyPair = (await oauth.dpopKeyPair())!;
      // Kept as the README says: the CryptoKeyPair itself in IndexedDB.
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('slipway-dpop', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('keys');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      await new Promise<void>((resolve, reject) => {
        const tx = db.transaction('keys', 'readwrite');
        tx.objectStore('keys').put(keyPair, 'session');
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      db.close();
      const bearer = await fetch('/v1/users/me', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
      return { tokens, meId: me.id, extractable: keyPair.privateKey.extractable, bearerStatus: bearer.status };
    },
    { callbackUrl: callback.href, request: started },
  );
  expect(signedIn.tokens.tokenType).toBe('dpop');
  expect(signedIn.meId).toBe(info.owner.id);
  expect(signedIn.extractable).toBe(false);
  expect(signedIn.bearerStatus).toBe(401);

  await page.reload();
  await page.waitForFunction(() => 'slipwaySdk' in window, undefined, { timeout: 20_000 });
  const resumed = await page.evaluate(
    async ({ clientId, tokens }) => {
      const sdk = (window as unknown as { slipwaySdk: typeof Sdk }).slipwaySdk;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('slipway-dpop', 1);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const keyPair = await new Promise<CryptoKeyPair>((resolve, reject) => {
        const get = db.transaction('keys').objectStore('keys').get('session');
        get.onsuccess = () => resolve(get.result as CryptoKeyPair);
        get.onerror = () => reject(get.error);
      });
      db.close();
      const oauth = new sdk.SlipwayOAuth({ baseUrl: location.origin, clientId, dpop: keyPair });
      const session = oauth.session({ ...tokens, expiresAt: Date.now() - 1000 });
      const me = await new sdk.Slipway({ baseUrl: location.origin, auth: session }).users.me();
      return { meId: me.id, extractable: keyPair.privateKey.extractable, refreshed: session.tokens!.accessToken !== tokens.accessToken, sameRefresh: session.tokens!.refreshToken === tokens.refreshToken };
    },
    { clientId: args.clientId, tokens: signedIn.tokens },
  );
  await page.close();
  expect(resumed).toEqual({ meId: info.owner.id, extractable: false, refreshed: true, sameRefresh: true });
  await admin.oauthClients.delete(app.client_id);
});
