import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import type { CookieJar } from '../support/oauthDriver.ts';
import { authorizeOverHttp } from '../support/oauthDriver.ts';
import { waitFor } from '../support/processes.ts';
import { useTokenRaceInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { tokenPost, v1Status, race } from '../support/concurrency.ts';
import type { Tokens} from '../support/tokens.ts';
import { type TestUser } from '../support/tokens.ts';

/*
 * OAUTH_REFRESH_REUSE_GRACE_SECONDS (default 0, see test/oauth/singleUse.test.ts): for that long after a
 * refresh token was rotated, presenting it again refreshes once more instead of revoking the grant, so
 * an app whose concurrent requests refresh at once is not signed out. After the window, a presentation
 * is reuse: refused, and the grant (every token refreshed inside the window too) is revoked.
 */
const GRACE_SECONDS = 8;
const PARALLEL = 20;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
let a: TestServer, b: TestServer;
let owner: TestUser;
let tokens: Tokens;
let jar: CookieJar;
const instances = useTokenRaceInstances({ oauthRefreshReuseGraceSeconds: GRACE_SECONDS });
beforeAll(() => ({ first: a, second: b, tokens, owner, jar } = instances));

describe.each([
  ['one instance', () => [a]],
  ['two instances on one database', () => [a, b]],
])('with a reuse grace window, on %s', (_name, servers) => {
  it(`${PARALLEL} concurrent refreshes inside the window all succeed; a presentation after it revokes the grant`, async () => {
    const clientId = await tokens.publicClient(owner.accountId, true);
    const { callback, verifier } = await authorizeOverHttp({ issuer: a.issuer, clientId, redirectUri: REDIRECT_URI, scope: 'read', email: owner.email, password: owner.password }, jar);
    const first = await tokenPost(a, { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: clientId });
    expect(first.status).toBe(200);
    const refreshToken = first.body.refresh_token!;

    const before = a.clock.now();
    const answers = await race(PARALLEL, (i) => tokenPost(servers()[i % servers().length]!, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }));
    const took = a.clock.now() - before;
    console.log(`[reuse grace] ${PARALLEL} concurrent refreshes of one token on ${servers().length} instance(s) took ${took} ms (window ${GRACE_SECONDS} s)`);
    expect(answers.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
    // Each got a token set of its own; the access tokens work.
    const issued = answers.map((r) => r.body);
    expect(new Set(issued.map((t) => t.refresh_token)).size).toBe(PARALLEL);
    for (const server of servers()) expect(await v1Status(server, issued[0]!.access_token!)).toBe(200);

    // After the window (the instances' clock is moved past it): the same token is reuse. Refused, and the grant goes with every token of it.
    a.clock.advance(Math.max(0, before + GRACE_SECONDS * 1000 + 500 - a.clock.now()));
    const late = await tokenPost(servers()[servers().length - 1]!, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(late.status, JSON.stringify(late.body)).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    for (const server of servers())
      for (const t of [issued[0]!, issued[PARALLEL - 1]!])
        await waitFor('the revoked grant to be refused on /v1', async () => (await v1Status(server, t.access_token!)) === 401, 10_000, 50);
    for (const t of issued) {
      const again = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: t.refresh_token!, client_id: clientId });
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
    }
  });
});

describe('OAUTH_REFRESH_REUSE_GRACE_SECONDS', () => {
  it('defaults to 0 (every second use is reuse) and accepts whole seconds up to 60', () => {
    expect(loadConfig({ env: {} }).oauthRefreshReuseGraceSeconds).toBe(0);
    expect(loadConfig({ env: { OAUTH_REFRESH_REUSE_GRACE_SECONDS: '30' } }).oauthRefreshReuseGraceSeconds).toBe(30);
    for (const bad of ['-1', '61', '1.5', 'soon'])
      expect(() => loadConfig({ env: { OAUTH_REFRESH_REUSE_GRACE_SECONDS: bad } }), bad).toThrow(ConfigError);
    expect(() => loadConfig({ env: { OAUTH_REFRESH_REUSE_GRACE_SECONDS: '61' } })).toThrow(/oauthRefreshReuseGraceSeconds \(env OAUTH_REFRESH_REUSE_GRACE_SECONDS\)/);
  });
});
