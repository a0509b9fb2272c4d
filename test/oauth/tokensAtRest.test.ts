import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/hash.ts';
import { collectionName, createAdapterClass } from '../../src/repositories/oidc/index.ts';
import { migrate } from '../../src/repositories/index.ts';
import { dumpDatabase } from '../support/database.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import { answerWebCallback, authorizeInBrowser, buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';

const env = useBrowserServer();
let server: TestServer, browser: Browser;
beforeAll(() => ({ server, browser } = env));
const WEB = { base: 'https://app.example.com', redirectUri: 'https://app.example.com/callback' };

/** A full PKCE sign-in (login and consent pages) in a fresh browser, then one refresh; every id it saw. */
async function signInAndRefresh() {
  const user = await makeUser(server, { role: 'developer' });
  const { client } = await makeClient(server, { account_id: user.account_id, redirect_uris: [WEB.redirectUri] });
  const config = await discoverPublicClient(server.issuer, client._id);
  const request = await buildPkceRequest(config, WEB.redirectUri, 'read write');
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await answerWebCallback(page, WEB.redirectUri);
    const interactionIds = new Set<string>();
    page.on('framenavigated', (frame) => {
      const match = /\/oauth\/interaction\/([^/?]+)/.exec(frame.url());
      if (frame === page.mainFrame() && match) interactionIds.add(match[1]!);
    });
    const callbackUrl = await authorizeInBrowser(page, request.url, WEB.base, user);
    expect(await page.locator('body').innerText()).toBe('callback received');
    const cookies = await context.cookies(server.url);
    await page.close();
    const code = callbackUrl.searchParams.get('code')!;
    const issued = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    const refreshed = await oidc.refreshTokenGrant(config, issued.refresh_token!);
    const sessionId = cookies.find((c) => c.name === '_session')?.value;
    expect(sessionId, 'the authorization server session cookie').toBeTruthy();
    const session = await server.running.provider.Session.find(sessionId!);
    expect(session?.accountId).toBe(user._id);
    expect(interactionIds.size).toBeGreaterThanOrEqual(1);
    return { config, code, issued, refreshed, sessionId: sessionId!, sessionUid: session!.uid, interactionIds: [...interactionIds] };
  } finally {
    await context.close();
  }
}

describe('authorization server artifacts at rest', () => {
  it('a scan of the whole database after a PKCE login and a refresh finds none of the issued ids', async () => {
    const flow = await signInAndRefresh();
    const secrets: Record<string, string> = {
      code: flow.code,
      'refresh token': flow.issued.refresh_token!,
      'rotated refresh token': flow.refreshed.refresh_token!,
      'access token': flow.issued.access_token,
      'access token jti': decodeJwt(flow.issued.access_token).jti!,
      'second access token jti': decodeJwt(flow.refreshed.access_token).jti!,
      'session id': flow.sessionId,
      'session uid': flow.sessionUid,
      ...Object.fromEntries(flow.interactionIds.map((id, i) => [`interaction ${i}`, id])),
    };
    const dump = await dumpDatabase(server.running.container.database.db);
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length, what).toBeGreaterThanOrEqual(16);
      expect(dump.includes(value), `${what} is in the database`).toBe(false);
    }
    // Still usable by whoever holds them: the refresh token is looked up by its hash.
    const stored = await server.running.container.database.db.collection(collectionName('RefreshToken')).findOne({ _id: sha256Hex(flow.refreshed.refresh_token!) as never });
    expect(stored).not.toBeNull();
    expect(await oidc.tokenIntrospection(flow.config, flow.refreshed.refresh_token!)).toMatchObject({ active: true });
  });

  it('records stored before ids were hashed are re-keyed by the migration and keep working', async () => {
    const flow = await signInAndRefresh();
    const db = server.running.container.database.db;
    const refreshToken = flow.refreshed.refresh_token!;
    // Put the live refresh token back in the old form: raw id, clear payload.
    const Adapter = createAdapterClass(db, server.repos.oauthClients);
    const payload = await new Adapter('RefreshToken').find(refreshToken);
    expect(payload).toBeDefined();
    const col = db.collection<{ _id: string; payload: string; expires_at: Date | null; grant_id?: string }>(collectionName('RefreshToken'));
    await col.deleteOne({ _id: sha256Hex(refreshToken) });
    await col.insertOne({ _id: refreshToken, payload: JSON.stringify(payload), expires_at: new Date(Date.now() + 3600_000), grant_id: payload!.grantId as string });
    expect(await dumpDatabase(db)).toContain(refreshToken);

    await migrate(db, server.repos); // what `slipway db migrate` (and a database's first start) runs

    expect(await dumpDatabase(db)).not.toContain(refreshToken);
    const again = await oidc.refreshTokenGrant(flow.config, refreshToken);
    expect(again.access_token).toBeTruthy();
  });
});
