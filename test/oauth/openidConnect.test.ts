import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useCallbackServer, useTestServer } from '../support/fixtures.ts';
import { CookieJar, driveAuthorization } from '../support/oauthDriver.ts';
import { discoverPublicClient } from '../support/oauthFlow.ts';

const server = useTestServer();
const callback = useCallbackServer();
let api: Api;
beforeAll(async () => {
  api = await Api.connect(server.url);
});

type User = Awaited<ReturnType<typeof makeUser>>;

/** openid-client builds the request (PKCE, state, nonce); the login and consent pages are driven over HTTP. */
async function signIn(config: oidc.Configuration, user: User, scope: string, jar = new CookieJar()) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const openid = scope.split(' ').includes('openid');
  const nonce = openid ? oidc.randomNonce() : undefined;
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback.redirectUri,
    scope,
    state,
    ...(nonce ? { nonce } : {}),
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const { callback: callbackUrl, loginShown, consentPage } = await driveAuthorization(url, { redirectUri: callback.redirectUri, email: user.email, password: user.password }, jar);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, ...(nonce ? { expectedNonce: nonce } : {}), idTokenExpected: openid });
  return { tokens, nonce, jar, loginShown, consentPage };
}

const atHash = (accessToken: string) => createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');

describe('OpenID Connect sign-in (authorization code + PKCE) with openid-client', () => {
  let user: User, clientId: string, config: oidc.Configuration;
  beforeAll(async () => {
    user = await makeUser(server, { role: 'developer', name: 'Ada Lovelace' });
    ({ client: { _id: clientId } } = await makeClient(server, { account_id: user.account_id, redirect_uris: [callback.redirectUri], scope: 'read write' }));
    config = await discoverPublicClient(server.issuer, clientId, 'oidc');
    // The ID token's signature is checked against jwks_uri too (openid-client skips it by default over TLS).
    oidc.enableNonRepudiationChecks(config);
  });

  it('issues an ID token (nonce, at_hash, auth_time, sid, profile and email claims) beside the /v1 access token, and userinfo answers', async () => {
    const { tokens, nonce, consentPage } = await signIn(config, user, 'openid profile email read');
    // The consent page says in plain words what signing in gives the app.
    for (const words of ['Know who you are', 'See your name', 'See your email address', 'Read your projects'])
      expect(consentPage).toContain(words);
    expect(tokens.id_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: server.issuer, sub: user._id, aud: clientId, nonce, email: user.email, email_verified: false, name: 'Ada Lovelace' });
    expect(typeof claims.auth_time).toBe('number');
    expect(typeof claims.sid).toBe('string');
    expect(claims.at_hash).toBe(atHash(tokens.access_token));

    // Verified independently with jose against the published keys: RS256, our issuer, this client.
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    const verified = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(`${server.issuer}/jwks`)), { issuer: server.issuer, audience: clientId, algorithms: ['RS256'] });
    expect(verified.payload.sub).toBe(user._id);

    // The access token is the /v1 token as before, and it works there.
    const access = decodeJwt(tokens.access_token);
    expect(access.aud).toBe(`${server.url}/v1`);
    expect(access.scope).toBe('openid profile email read');
    const projects = await api.get('/v1/projects', { token: tokens.access_token });
    expect(projects.status).toBe(200);

    // The same access token calls userinfo.
    const info = await oidc.fetchUserInfo(config, tokens.access_token, user._id);
    expect(info).toEqual({ sub: user._id, email: user.email, email_verified: false, name: 'Ada Lovelace' });
  });

  it('gives only the claims of the scopes asked for: openid alone is sub only', async () => {
    const { tokens } = await signIn(config, user, 'openid read');
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user._id);
    expect(claims.email).toBeUndefined();
    expect(claims.name).toBeUndefined();
    expect(await oidc.fetchUserInfo(config, tokens.access_token, user._id)).toEqual({ sub: user._id });
  });

  it('without openid: no ID token, and the access token is refused at userinfo (insufficient_scope)', async () => {
    const { tokens } = await signIn(config, user, 'read');
    expect(tokens.id_token).toBeUndefined();
    const res = await fetch(`${server.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
  });

  it('refuses at userinfo a token that is not ours, and an API key', async () => {
    const forged = `${tokens64('{"alg":"RS256","typ":"at+jwt"}')}.${tokens64(JSON.stringify({ sub: user._id, aud: `${server.url}/v1`, scope: 'openid' }))}.c2ln`;
    for (const token of [forged, 'slw_not_a_token']) {
      const res = await fetch(`${server.issuer}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
  });

  it('RP-initiated logout with id_token_hint ends the session: the next sign-in asks for the password again', async () => {
    const first = await signIn(config, user, 'openid read');
    expect(first.loginShown).toBe(true);
    // Still signed in: the same browser goes through without the login form.
    const again = await signIn(config, user, 'openid read', first.jar);
    expect(again.loginShown).toBe(false);

    const endSession = oidc.buildEndSessionUrl(config, { id_token_hint: again.tokens.id_token! });
    expect(endSession.href.startsWith(`${server.issuer}/session/end?`)).toBe(true);
    const page = await fetch(endSession, { headers: { cookie: first.jar.header(endSession.pathname) }, redirect: 'manual' });
    first.jar.store(page);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('Sign out of Slipway?');
    expect(body).toContain('Test App');
    const action = /<form method="post" action="([^"]+)"/.exec(body)![1]!.replace(/&amp;/g, '&');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(body)![1]!;
    const confirmUrl = new URL(action, endSession);
    const confirmed = await fetch(confirmUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: first.jar.header(confirmUrl.pathname) },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
      redirect: 'manual',
    });
    first.jar.store(confirmed);
    expect(confirmed.status).toBe(303);
    const done = new URL(confirmed.headers.get('location')!, confirmUrl);
    const signedOut = await fetch(done, { headers: { cookie: first.jar.header(done.pathname) } });
    expect(await signedOut.text()).toContain('You are signed out of Slipway');

    const afterLogout = await signIn(config, user, 'openid read', first.jar);
    expect(afterLogout.loginShown).toBe(true);
  });
});

function tokens64(text: string): string {
  return Buffer.from(text).toString('base64url');
}
