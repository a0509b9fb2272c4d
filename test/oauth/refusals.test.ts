import { decodeJwt } from 'jose';
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
let user: Awaited<ReturnType<typeof makeUser>>;
let clientId: string;
let readOnlyClientId: string;
let webClientId: string;
const WEB_REDIRECT = 'https://app.example.com/callback';

beforeAll(async () => {
  ({ server, browser } = env);
  user = await makeUser(server, { role: 'developer' });
  const account_id = user.account_id;
  [clientId, readOnlyClientId, webClientId] = await Promise.all(
    [
      { redirect_uris: [callback.redirectUri] },
      { redirect_uris: [callback.redirectUri], scope: 'read' },
      { redirect_uris: [WEB_REDIRECT] },
    ].map(async (o) => (await makeClient(server, { account_id, ...o })).client._id),
  );
});

const S256_CHALLENGE = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGIRjMtl3A', code_challenge_method: 'S256' };

function authorizeUrl(params: Record<string, string>): string {
  return `${server.issuer}/authorize?${new URLSearchParams({ response_type: 'code', state: 'st-123', ...params })}`;
}

/** Sends an authorization request the way a browser would, without following the answer. */
async function authorize(params: Record<string, string>) {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  return { res, location: res.headers.get('location') ? new URL(res.headers.get('location')!) : undefined };
}

/** The error an authorization request was refused with, read from the redirect back to the client. */
async function expectRedirectedError(params: Record<string, string>, error: string) {
  const { res, location } = await authorize(params);
  expect(res.status).toBe(303);
  expect(location, 'redirected back to the client').toBeDefined();
  expect(`${location!.origin}${location!.pathname}`).toBe(params.redirect_uri);
  expect(location!.searchParams.get('error')).toBe(error);
  expect(location!.searchParams.get('state')).toBe('st-123');
  expect(location!.searchParams.get('iss')).toBe(server.issuer);
  expect(location!.searchParams.get('code')).toBeNull();
  return location!.searchParams;
}

async function tokenRequest(params: Record<string, string>) {
  const res = await fetch(`${server.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Logs in through the real pages and returns an unredeemed code and its verifier. */
async function obtainCode(scope = 'read', forClient = clientId) {
  const config = await discoverPublicClient(server.issuer, forClient);
  const request = await buildPkceRequest(config, callback.redirectUri, scope);
  const page = await browser.newPage();
  try {
    const callbackUrl = await authorizeInBrowser(page, request.url, callback.base, user);
    expect(callbackUrl.searchParams.get('state')).toBe(request.state);
    return { config, request, callbackUrl, code: callbackUrl.searchParams.get('code')! };
  } finally {
    await page.close();
  }
}

describe('PKCE is required, S256 only', () => {
  it('refuses a request without code_challenge with invalid_request, redirected to the client', async () => {
    const params = await expectRedirectedError({ client_id: clientId, redirect_uri: callback.redirectUri, scope: 'read' }, 'invalid_request');
    expect(params.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses code_challenge_method=plain with invalid_request', async () => {
    const params = await expectRedirectedError(
      { client_id: clientId, redirect_uri: callback.redirectUri, scope: 'read', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
      'invalid_request',
    );
    expect(params.get('error_description')).toMatch(/code_challenge_method/);
  });

  it('refuses a wrong code_verifier at the token endpoint with invalid_grant', async () => {
    const { code } = await obtainCode();
    const wrong = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.redirectUri,
      client_id: clientId,
      code_verifier: oidc.randomPKCECodeVerifier(),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.body).not.toHaveProperty('access_token');

    const missing = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, client_id: clientId });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_grant');
  });
});

describe('redirect URIs match exactly', () => {
  const cases: [string, string][] = [
    ['an unregistered host', 'https://evil.example.com/callback'],
    ['the same host with a different path', 'https://app.example.com/other'],
    ['a trailing slash', 'https://app.example.com/callback/'],
    ['a different port for an https URI', 'https://app.example.com:8443/callback'],
    ['an extra query', 'https://app.example.com/callback?next=1'],
    ['http instead of https', 'http://app.example.com/callback'],
  ];

  it.each(cases)('shows an error page and does not redirect for %s', async (_label, redirectUri) => {
    const { res, location } = await authorize({ client_id: webClientId, redirect_uri: redirectUri, scope: 'read', ...S256_CHALLENGE });
    expect(res.status).toBe(400);
    expect(location).toBeUndefined();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('We could not complete this request');
    expect(html).toContain('<code>invalid_redirect_uri</code>');
    expect(html).not.toContain(redirectUri);
  });

  it('keeps the browser on the authorization server for a near-miss redirect URI', async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(authorizeUrl({ client_id: webClientId, redirect_uri: `${WEB_REDIRECT}/`, scope: 'read', ...S256_CHALLENGE }));
      expect(response!.status()).toBe(400);
      expect(new URL(page.url()).origin).toBe(server.url);
      expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('We could not complete this request');
    } finally {
      await page.close();
    }
  });

  it('still redirects a native client to its loopback redirect URI on another port (RFC 8252 §7.3)', async () => {
    const otherPort = new URL(callback.redirectUri);
    otherPort.port = String(Number(otherPort.port) === 65535 ? 1024 : Number(otherPort.port) + 1);
    // Without PKCE the request is refused, which shows the error is delivered to the other port.
    const { res, location } = await authorize({ client_id: clientId, redirect_uri: otherPort.href, scope: 'read' });
    expect(res.status).toBe(303);
    expect(location!.href.startsWith(otherPort.href)).toBe(true);
    expect(location!.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('authorization codes are single-use', () => {
  it('refuses a replayed code with invalid_grant and revokes every token issued from the first exchange', async () => {
    const { config, request, callbackUrl, code } = await obtainCode('read write');
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.refresh_token).toBeTruthy();
    const grantId = decodeJwt(tokens.access_token).gid as string;
    expect(grantId).toBeTruthy();
    const before = await oidc.tokenIntrospection(config, tokens.refresh_token!);
    expect(before.active).toBe(true);

    const replay = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callback.redirectUri,
      client_id: clientId,
      code_verifier: request.verifier,
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(replay.body).not.toHaveProperty('access_token');

    // The refresh token from the first exchange is dead...
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const after = await oidc.tokenIntrospection(config, tokens.refresh_token!);
    expect(after).toEqual({ active: false });

    // ...and so is the JWT access token: introspection says inactive, and its grant is listed as revoked,
    // which the resource server checks.
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
    const revoked = await server.repos.revokedGrants.revokedSince(new Date(Date.now() - 60_000));
    expect(revoked.map((r) => r.id)).toContain(grantId);
  });
});

describe('scopes', () => {
  it('refuses an unknown scope with invalid_scope, redirected to the client', async () => {
    const params = await expectRedirectedError(
      { client_id: clientId, redirect_uri: callback.redirectUri, scope: 'read bogus', ...S256_CHALLENGE },
      'invalid_scope',
    );
    expect(params.get('scope')).toBe('bogus');
  });

  it('refuses a scope the client is not registered for with invalid_scope', async () => {
    const params = await expectRedirectedError(
      { client_id: readOnlyClientId, redirect_uri: callback.redirectUri, scope: 'write', ...S256_CHALLENGE },
      'invalid_scope',
    );
    expect(params.get('scope')).toBe('write');
  });

  it('OpenID sign-in does not widen the API scopes: openid profile email write for a read-only client is invalid_scope (write)', async () => {
    const params = await expectRedirectedError(
      { client_id: readOnlyClientId, redirect_uri: callback.redirectUri, scope: 'openid profile email write', ...S256_CHALLENGE },
      'invalid_scope',
    );
    expect(params.get('scope')).toBe('write');
  });

  it('lets a client registered for read ask for offline_access beside read', async () => {
    const { config, request, callbackUrl } = await obtainCode('offline_access read', readOnlyClientId);
    expect(callbackUrl.searchParams.get('error')).toBeNull();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    expect(tokens.id_token).toBeUndefined();
    expect(decodeJwt(tokens.access_token).sub).toBe(user._id);
    expect(decodeJwt(tokens.access_token).scope).toBe('read');
    expect(tokens.refresh_token).toBeTruthy();
  });
});
