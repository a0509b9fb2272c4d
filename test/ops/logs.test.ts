import { describe, expect, it } from 'vitest';
import { AuthorizeError, authorizeOverHttp, basicAuth, CookieJar, tokenRequest } from '../support/oauthDriver.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';

const server = useTestServer();

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

describe('server logs', () => {
  it('never contain passwords, client secrets, codes or tokens, and every request line has its request id', async () => {
    const user = await makeUser(server, { password: 'the-right-password-7Qk2' });
    const { client, clientSecret } = await makeClient(server, {
      account_id: user.account_id,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      redirect_uris: [REDIRECT_URI],
      scope: 'read write',
    });
    const credentials = { clientId: client._id, clientSecret: clientSecret! };
    const wrongPassword = 'the-wrong-password-9Zx4';
    const wrongSecret = `${clientSecret!.slice(0, -4)}AAAA`;

    // client_credentials
    const ccResponse = await fetch(`${server.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client._id, clientSecret!), 'x-request-id': 'ops-logs-cc-0001' },
      body: 'grant_type=client_credentials&scope=read',
    });
    expect(ccResponse.status).toBe(200);
    const cc = (await ccResponse.json()) as { access_token: string };

    // a wrong client secret
    await expect(tokenRequest(server.issuer, { ...credentials, clientSecret: wrongSecret }, { grant_type: 'client_credentials' })).rejects.toMatchObject({ status: 401 });

    // a failed login on the real login page
    const failed = authorizeOverHttp({ issuer: server.issuer, ...credentials, redirectUri: REDIRECT_URI, scope: 'read', email: user.email, password: wrongPassword, requestId: 'ops-logs-badlogin-01' });
    await expect(failed).rejects.toBeInstanceOf(AuthorizeError);
    await expect(failed).rejects.toMatchObject({ status: 401 });

    // a successful login and consent, the code exchange, and a refresh
    const jar = new CookieJar();
    const { callback, verifier } = await authorizeOverHttp({ issuer: server.issuer, ...credentials, redirectUri: REDIRECT_URI, scope: 'read write', email: user.email, password: user.password }, jar);
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const tokens = await tokenRequest(server.issuer, credentials, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await tokenRequest(server.issuer, credentials, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });

    // an access token presented to the API, and a token revocation
    const api = await fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    await api.body?.cancel();
    const revoked = await fetch(`${server.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client._id, clientSecret!) },
      body: new URLSearchParams({ token: tokens.refresh_token!, token_type_hint: 'refresh_token' }).toString(),
    });
    expect(revoked.status).toBe(200);

    const secrets: Record<string, string> = {
      'client secret': clientSecret!,
      'wrong client secret': wrongSecret,
      'Basic credentials': basicAuth(client._id, clientSecret!).slice('Basic '.length),
      password: user.password,
      'wrong password': wrongPassword,
      'authorization code': code,
      'PKCE verifier': verifier,
      'client_credentials access token': cc.access_token,
      'access token': tokens.access_token,
      'refresh token': tokens.refresh_token!,
      'refreshed access token': refreshed.access_token,
    };
    const logs = server.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const [what, value] of Object.entries(secrets)) {
      expect(value.length, what).toBeGreaterThan(8);
      expect(logs.includes(value), `${what} appears in the logs`).toBe(false);
      // JWTs are three parts; the signature alone would also be a leak.
      const signature = value.split('.')[2];
      if (signature) expect(logs.includes(signature), `${what} signature appears in the logs`).toBe(false);
    }

    const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requestLines = lines.filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(10);
    for (const line of requestLines) expect(line.request_id, JSON.stringify(line)).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    for (const line of lines.filter((l) => ['tokens issued', 'login failed', 'login succeeded', 'oauth request refused', 'consent granted'].includes(l.msg as string)))
      expect(line.request_id, JSON.stringify(line)).toEqual(expect.any(String));

    // The caller's request id ties the access line to what happened inside the request.
    const cc0001 = lines.filter((l) => l.request_id === 'ops-logs-cc-0001');
    expect(cc0001).toEqual(expect.arrayContaining([expect.objectContaining({ msg: 'request', path: '/oauth/token', status: 200 }), expect.objectContaining({ msg: 'tokens issued', client_id: client._id })]));
    const badLogin = lines.filter((l) => l.request_id === 'ops-logs-badlogin-01');
    expect(badLogin).toEqual(expect.arrayContaining([expect.objectContaining({ msg: 'login failed' }), expect.objectContaining({ msg: 'request', status: 401, path: expect.stringMatching(/^\/oauth\/interaction\/[^/]+\/login$/) })]));
    // Query strings (which carry state, code_challenge and, on the callback, the code) are never logged.
    expect(requestLines.some((l) => String(l.path).includes('?'))).toBe(false);
  });
});
