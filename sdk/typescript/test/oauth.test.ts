import { describe, expect, it } from 'vitest';
import { AuthenticationError, OAuthError, PermissionDeniedError, Slipway, SlipwayOAuth } from '../src/index.ts';
import { harness, login, oauthFor, recordingFetch, redirectUri } from './support/env.ts';
import { CookieJar, loginThroughPages } from './support/login.ts';

describe('OAuth: Authorization Code + PKCE through the real pages', () => {
  it('builds an S256 URL with state, signs in on the login and consent pages, and exchanges the code', async () => {
    const info = harness();
    const oauth = oauthFor(info);
    const request = await oauth.authorizationUrl({ scope: 'read write' });
    const url = new URL(request.url);
    expect(url.href.startsWith(`${info.issuer}/authorize?`)).toBe(true);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBe(request.state);
    expect(url.searchParams.get('client_id')).toBe(info.public_client.client_id);

    const { callback, pages } = await loginThroughPages(request.url, info.owner, oauth.redirectUri!);
    expect(pages).toEqual(['login', 'consent']);
    expect(callback.searchParams.get('state')).toBe(request.state);
    const tokens = await oauth.exchangeCode(callback, request);
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());

    const slipway = new Slipway({ baseUrl: info.base_url, auth: oauth.session(tokens) });
    const me = await slipway.users.me();
    expect(me.id).toBe(info.owner.id);
  });

  it('accepts the loopback redirect URI on any port (RFC 8252)', async () => {
    const info = harness();
    const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.public_client.client_id, redirectUri: redirectUri(info, 61_234) });
    const request = await oauth.authorizationUrl({ scope: 'read' });
    const { callback } = await loginThroughPages(request.url, info.viewer, oauth.redirectUri!);
    expect(callback.port).toBe('61234');
    expect((await oauth.exchangeCode(callback, request)).accessToken).toBeTruthy();
  });

  it('refuses a callback whose state does not match', async () => {
    const info = harness();
    const oauth = oauthFor(info);
    const request = await oauth.authorizationUrl({ scope: 'read' });
    const { callback } = await loginThroughPages(request.url, info.owner, oauth.redirectUri!, new CookieJar());
    const err = await oauth.exchangeCode(callback, { ...request, state: 'someone-elses-state' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
  });

  it('refreshes automatically when the access token has expired, with exactly grant_type, refresh_token and client_id', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const oauth = oauthFor(info, recorder.fetch);
    const tokens = await login(info, 'read', 'owner', oauth);
    const saved: string[] = [];
    const session = oauth.session({ ...tokens, expiresAt: Date.now() - 1000 }, { onTokens: (t) => void saved.push(t.accessToken) });
    const slipway = new Slipway({ baseUrl: info.base_url, auth: session, maxRetries: 0 });

    const [a, b] = await Promise.all([slipway.users.me(), slipway.projects.list()]);
    expect(a.id).toBe(info.owner.id);
    expect(b.data.length).toBeGreaterThan(0);

    const refreshes = recorder.calls.filter((c) => c.url === `${info.issuer}/token` && new URLSearchParams(c.body).get('grant_type') === 'refresh_token');
    // Two concurrent calls, one refresh: a rotated refresh token is never presented twice.
    expect(refreshes).toHaveLength(1);
    const form = new URLSearchParams(refreshes[0]!.body);
    expect([...form.keys()].sort()).toEqual(['client_id', 'grant_type', 'refresh_token']);
    expect(form.get('refresh_token')).toBe(tokens.refreshToken);
    expect(form.get('client_id')).toBe(info.public_client.client_id);
    expect(refreshes[0]!.headers.get('authorization')).toBeNull();
    expect(saved).toEqual([session.tokens!.accessToken]);
    expect(session.tokens!.accessToken).not.toBe(tokens.accessToken);
    expect(session.tokens!.refreshToken).not.toBe(tokens.refreshToken);
  });

  it('refreshes once and repeats the request after a 401 invalid_token', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const oauth = oauthFor(info, recorder.fetch);
    const tokens = await login(info, 'read', 'owner', oauth);
    // The server no longer accepts this access token (here: one it never issued) although it has not expired.
    const session = oauth.session({ ...tokens, accessToken: `${tokens.accessToken.slice(0, -4)}AAAA` });
    const slipway = new Slipway({ baseUrl: info.base_url, auth: session, maxRetries: 0, fetch: recorder.fetch });
    const me = await slipway.users.me();
    expect(me.id).toBe(info.owner.id);
    const apiCalls = recorder.calls.filter((c) => c.url.endsWith('/v1/users/me'));
    expect(apiCalls).toHaveLength(2);
    const refreshes = recorder.calls.filter((c) => c.url === `${info.issuer}/token` && new URLSearchParams(c.body).get('grant_type') === 'refresh_token');
    expect(refreshes).toHaveLength(1);
    expect(session.tokens!.accessToken).not.toBe(tokens.accessToken);
  });

  it('surfaces a refused refresh as OAuthError invalid_grant, and a refused token without a session as AuthenticationError', async () => {
    const info = harness();
    const oauth = oauthFor(info);
    const tokens = await login(info, 'read', 'owner', oauth);
    await oauth.refresh(tokens.refreshToken!);
    // Presenting the rotated-out refresh token again is reuse: the server refuses it (and ends the grant).
    const slipway = new Slipway({ baseUrl: info.base_url, auth: oauth.session({ ...tokens, expiresAt: Date.now() - 1 }), maxRetries: 0 });
    const refused = await slipway.users.me().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).code).toBe('invalid_grant');
    const fixed = new Slipway({ baseUrl: info.base_url, accessToken: 'not-a-token', maxRetries: 0 });
    const unauthenticated = await fixed.users.me().catch((e: unknown) => e);
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect((unauthenticated as AuthenticationError).code).toBe('invalid_token');
  });

  it('client credentials: a confidential client acts as its account', async () => {
    const info = harness();
    const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.confidential_client.client_id, clientSecret: info.confidential_client.client_secret });
    const slipway = new Slipway({ baseUrl: info.base_url, auth: oauth.clientCredentialsSession('read') });
    const page = await slipway.projects.list();
    expect(page.data.map((p) => p.id)).toContain(info.project.id);
    const denied = await slipway.projects.create({ name: 'not with read' }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PermissionDeniedError);
  });
});
