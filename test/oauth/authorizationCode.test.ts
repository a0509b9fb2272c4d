import { decodeJwt, decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer, useCallbackServer } from '../support/fixtures.ts';
import { authorizeInBrowser, buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';

const env = useBrowserServer();
const callback = useCallbackServer();
let server: TestServer, browser: Browser;
beforeAll(() => ({ server, browser } = env));

describe('authorization code with PKCE through the login and consent pages', () => {
  it('issues a JWT access token, refreshes with grant_type/refresh_token/client_id, and detects refresh token reuse', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { client } = await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri] });
    const config = await discoverPublicClient(server.issuer, client._id);
    const request = await buildPkceRequest(config, callback.redirectUri, 'read write');

    const page = await browser.newPage();
    const callbackUrl = await authorizeInBrowser(page, request.url, callback.base, user);
    await page.close();
    expect(callbackUrl.searchParams.get('iss')).toBe(server.issuer);

    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeTruthy();

    const header = decodeProtectedHeader(tokens.access_token);
    expect(header.typ).toBe('at+jwt');
    const claims = decodeJwt(tokens.access_token);
    expect(claims.iss).toBe(server.issuer);
    expect(claims.aud).toBe(`${server.url}/v1`);
    expect(claims.sub).toBe(user._id);
    expect(claims.client_id).toBe(client._id);
    expect(claims.scope).toBe('read write');
    expect(claims.exp! - claims.iat!).toBe(3600);

    // SPEC §5.2: refresh with exactly grant_type, refresh_token and client_id as form fields.
    const refreshResponse = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client._id }),
    });
    expect(refreshResponse.status).toBe(200);
    const refreshed = (await refreshResponse.json()) as { access_token: string; refresh_token: string; expires_in: number };
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(refreshed.access_token).scope).toBe('read write');

    // Reusing the rotated-out refresh token fails and revokes the whole grant, new refresh token included.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
