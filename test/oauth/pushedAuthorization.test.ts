import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useCallbackServer, useTestServer } from '../support/fixtures.ts';
import { CookieJar, driveAuthorization } from '../support/oauthDriver.ts';
import { discoverPublicClient } from '../support/oauthFlow.ts';

/** RFC 9126: pushed authorization requests, and clients registered to accept nothing else. */
const server = useTestServer();
const callback = useCallbackServer();

type User = Awaited<ReturnType<typeof makeUser>>;

describe('a client with require_pushed_authorization_requests', () => {
  let user: User, clientId: string, config: oidc.Configuration;
  beforeAll(async () => {
    user = await makeUser(server, { role: 'developer' });
    ({ client: { _id: clientId } } = await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri], require_pushed_authorization_requests: true }));
    config = await discoverPublicClient(server.issuer, clientId, 'oidc');
  });

  async function params() {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    return { verifier, state, parameters: { redirect_uri: callback.redirectUri, scope: 'openid read', state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' } };
  }

  it('is refused at /authorize with the parameters in the URL', async () => {
    const { parameters } = await params();
    const url = oidc.buildAuthorizationUrl(config, parameters);
    const res = await fetch(url, { redirect: 'manual' });
    // The redirect URI is registered, so the refusal goes back to the app the OAuth way.
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.href.startsWith(callback.redirectUri)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/Pushed Authorization Request must be used/);
  });

  it('signs in with a pushed request (openid-client): request_uri at /authorize, then the code', async () => {
    const { verifier, state, parameters } = await params();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, parameters);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const { callback: callbackUrl } = await driveAuthorization(url, { redirectUri: callback.redirectUri, email: user.email, password: user.password }, new CookieJar());
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()!.sub).toBe(user._id);
    expect(decodeJwt(tokens.access_token).scope).toBe('openid read');
  });

  it('answers the pushed request endpoint as RFC 9126 says: 201, request_uri, expires_in', async () => {
    const { parameters } = await params();
    const res = await fetch(`${server.issuer}/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, response_type: 'code', ...parameters }).toString(),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { request_uri: string; expires_in: number };
    expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(body.expires_in).toBeGreaterThan(0);
  });
});

describe('a client without the requirement', () => {
  it('may use either way', async () => {
    const user = await makeUser(server, { role: 'developer' });
    const { client } = await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri] });
    const config = await discoverPublicClient(server.issuer, client._id, 'oidc');
    for (const pushed of [false, true]) {
      const verifier = oidc.randomPKCECodeVerifier();
      const parameters = { redirect_uri: callback.redirectUri, scope: 'read', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state: oidc.randomState() };
      const url = pushed ? await oidc.buildAuthorizationUrlWithPAR(config, parameters) : oidc.buildAuthorizationUrl(config, parameters);
      const { callback: callbackUrl } = await driveAuthorization(url, { redirectUri: callback.redirectUri, email: user.email, password: user.password }, new CookieJar());
      expect(callbackUrl.searchParams.get('code'), `pushed: ${pushed}`).toBeTruthy();
    }
  });
});
