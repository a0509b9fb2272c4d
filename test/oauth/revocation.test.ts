import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer, useCallbackServer } from '../support/fixtures.ts';
import { authorizeInBrowser, buildPkceRequest, discoverConfidentialClient, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';

const env = useBrowserServer();
const callback = useCallbackServer();
let server: TestServer, browser: Browser;
let user: Awaited<ReturnType<typeof makeUser>>;
let clientId: string;
let config: oidc.Configuration;
/** One signed-in browser: after the first flow it has a session and remembered consent. */
let device: BrowserContext;

beforeAll(async () => {
  ({ server, browser } = env);
  user = await makeUser(server, { role: 'developer' });
  clientId = (await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri] })).client._id;
  config = await discoverPublicClient(server.issuer, clientId);
  device = await browser.newContext();
});

async function issueTokens(context: BrowserContext = device) {
  const request = await buildPkceRequest(config, callback.redirectUri, 'read');
  const page = await context.newPage();
  try {
    const callbackUrl = await authorizeInBrowser(page, request.url, callback.base, user);
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.refresh_token).toBeTruthy();
    return { access: tokens.access_token, refresh: tokens.refresh_token!, grantId: decodeJwt(tokens.access_token).gid as string };
  } finally {
    await page.close();
  }
}

async function revoke(params: Record<string, string>) {
  const res = await fetch(`${server.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, string>) : undefined };
}

async function revokedGrantIds(): Promise<string[]> {
  return (await server.repos.revokedGrants.revokedSince(new Date(Date.now() - 60_000))).map((r) => r.id);
}

describe('token revocation (RFC 7009)', () => {
  it('revokes a refresh token presented with client_id: 200, then refreshing fails with invalid_grant', async () => {
    const tokens = await issueTokens();
    expect(await revokedGrantIds()).not.toContain(tokens.grantId);

    const res = await revoke({ token: tokens.refresh, token_type_hint: 'refresh_token', client_id: clientId });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');

    await expect(oidc.refreshTokenGrant(config, tokens.refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await oidc.tokenIntrospection(config, tokens.refresh)).toEqual({ active: false });
    // The grant is gone too, so the JWT access tokens issued from it are refused by the API.
    expect(await revokedGrantIds()).toContain(tokens.grantId);
  });

  it('answers 200 for a token it does not know', async () => {
    const res = await revoke({ token: 'not-a-token-we-issued', client_id: clientId });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('revokes a JWT access token: 200, then it is inactive; as oidc-provider does, the grant\'s refresh tokens go too', async () => {
    const tokens = await issueTokens();
    expect(await oidc.tokenIntrospection(config, tokens.access)).toMatchObject({ active: true });
    const res = await revoke({ token: tokens.access, client_id: clientId });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await oidc.tokenIntrospection(config, tokens.access)).toEqual({ active: false });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('still refuses other JWTs at the endpoint (unsupported_token_type)', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const res = await revoke({ token: `${header}.${Buffer.from('{}').toString('base64url')}.`, client_id: clientId });
    expect(res.status).toBe(400);
    expect(res.body?.error).toBe('unsupported_token_type');
  });

  it('does not let another public client revoke the token: 200, and the token keeps working', async () => {
    const tokens = await issueTokens();
    const other = (await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri] })).client._id;
    const res = await revoke({ token: tokens.refresh, client_id: other });
    expect(res.status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(await revokedGrantIds()).not.toContain(tokens.grantId);
  });

  it('ends only the signed-in device whose refresh token was revoked, not the same user\'s other devices', async () => {
    const laptop = await browser.newContext();
    const phone = await browser.newContext();
    try {
      const onLaptop = await issueTokens(laptop);
      const onPhone = await issueTokens(phone);
      expect(await revokedGrantIds()).not.toContain(onPhone.grantId);

      expect((await revoke({ token: onLaptop.refresh, client_id: clientId })).status).toBe(200);
      await expect(oidc.refreshTokenGrant(config, onLaptop.refresh)).rejects.toMatchObject({ error: 'invalid_grant' });

      const refreshed = await oidc.refreshTokenGrant(config, onPhone.refresh);
      expect(refreshed.refresh_token).toBeTruthy();
      expect(await revokedGrantIds()).not.toContain(onPhone.grantId);
    } finally {
      await Promise.all([laptop.close(), phone.close()]);
    }
  });
});

describe('token introspection', () => {
  it('tells the client that owns a refresh token about it', async () => {
    const tokens = await issueTokens();
    const result = await oidc.tokenIntrospection(config, tokens.refresh);
    expect(result).toMatchObject({ active: true, client_id: clientId, sub: user._id, scope: 'read', iss: server.issuer });
    expect(result.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('says a refresh token is inactive once it has been rotated, and its successor active', async () => {
    const tokens = await issueTokens();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(await oidc.tokenIntrospection(config, tokens.refresh)).toEqual({ active: false });
    expect(await oidc.tokenIntrospection(config, refreshed.refresh_token!)).toMatchObject({ active: true, client_id: clientId, sub: user._id });
  });

  it('tells another client nothing, even a confidential one', async () => {
    const tokens = await issueTokens();
    const { client, clientSecret } = await makeClient(server, {
      account_id: (await makeUser(server)).account_id,
      redirect_uris: ['https://elsewhere.example.com/cb'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    const snoop = await discoverConfidentialClient(server.issuer, client._id, clientSecret!);
    expect(await oidc.tokenIntrospection(snoop, tokens.refresh)).toEqual({ active: false });
  });
});
