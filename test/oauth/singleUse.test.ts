import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeOverHttp, CookieJar } from '../support/oauthDriver.ts';
import { waitFor } from '../support/processes.ts';
import { makeClient } from '../support/factories.ts';
import { useTokenRaceInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { tokenPost, v1Status, type TokenAnswer, race } from '../support/concurrency.ts';
import type { Tokens} from '../support/tokens.ts';
import { type TestUser } from '../support/tokens.ts';

/*
 * Issue #18, "what was seen": twelve parallel redemptions of one authorization code gave up to twelve
 * token sets, and twelve parallel refreshes of one rotated refresh token forked into up to twelve chains
 * (consume() was an update after a read, which FerretDB 1.24 does not apply atomically). Now each is
 * claimed by a unique insert: of PARALLEL requests, on one instance or spread over two on one
 * database, exactly one gets tokens, the others `invalid_grant`, and the grant is revoked (the winner's
 * access token is refused on /v1, its refresh token at the token endpoint).
 */
const PARALLEL = 20;
const ROUNDS = 8;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
let a: TestServer, b: TestServer;
let owner: TestUser;
let tokens: Tokens;
let jar: CookieJar;
// The token endpoint's budgets (useTokenRaceInstances) and login throttling are not what is tested here.
const instances = useTokenRaceInstances({ loginPerEmailAndSourcePerMinute: 10_000, loginPerSourcePerMinute: 10_000, loginPerEmailPerMinute: 10_000 });
beforeAll(() => ({ first: a, second: b, tokens, owner, jar } = instances));

/** A fresh code for a new first-party public client (the browser session in `jar` is reused). */
async function freshCode(): Promise<{ clientId: string; code: string; verifier: string }> {
  const clientId = await tokens.publicClient(owner.accountId, true);
  const { callback, verifier } = await authorizeOverHttp({ issuer: a.issuer, clientId, redirectUri: REDIRECT_URI, scope: 'read', email: owner.email, password: owner.password }, jar);
  return { clientId, code: callback.searchParams.get('code')!, verifier };
}

/** PARALLEL requests at once, spread evenly over `servers`. */
async function all(servers: TestServer[], request: (server: TestServer) => Promise<TokenAnswer>): Promise<TokenAnswer[]> {
  return await race(PARALLEL, (i) => request(servers[i % servers.length]!));
}

/** Exactly one answer is tokens, every other one 400 invalid_grant; returns the one. */
function onlyWinner(answers: TokenAnswer[]): TokenAnswer['body'] {
  const winners = answers.filter((r) => r.status === 200);
  expect(winners.length, JSON.stringify(answers.map((r) => r.status))).toBe(1);
  for (const loser of answers.filter((r) => r.status !== 200)) {
    expect(loser.status, JSON.stringify(loser.body)).toBe(400);
    expect(loser.body.error).toBe('invalid_grant');
    expect(loser.body.access_token).toBeUndefined();
  }
  return winners[0]!.body;
}

/** The grant was revoked: the access token is refused on /v1 by every instance, the refresh token at the token endpoint. */
async function expectGrantRevoked(servers: TestServer[], clientId: string, won: TokenAnswer['body']): Promise<void> {
  for (const server of servers) await waitFor('the revoked grant to be refused on /v1', async () => (await v1Status(server, won.access_token!)) === 401, 10_000, 50);
  const refresh = await tokenPost(servers[0]!, { grant_type: 'refresh_token', refresh_token: won.refresh_token!, client_id: clientId });
  expect(refresh.status, JSON.stringify(refresh.body)).toBe(400);
  expect(refresh.body.error).toBe('invalid_grant');
}

describe.each([
  ['one instance', () => [a]],
  ['two instances on one database', () => [a, b]],
])('on %s', (_name, servers) => {
  it(`${PARALLEL} parallel redemptions of one code, ${ROUNDS} rounds: one token set each round, the grant then revoked`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const { clientId, code, verifier } = await freshCode();
      const answers = await all(servers(), (server) =>
        tokenPost(server, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: clientId }),
      );
      winners.push(answers.filter((r) => r.status === 200).length);
      const won = onlyWinner(answers);
      expect(won.refresh_token).toBeTruthy();
      await expectGrantRevoked(servers(), clientId, won);
    }
    console.log(`[single use] code redeemed ${PARALLEL}× at once on ${servers().length} instance(s): token sets per round ${winners.join(', ')}`);
  });

  it(`${PARALLEL} parallel refreshes of one rotated refresh token, ${ROUNDS} rounds: one succeeds, then the grant is revoked`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const { clientId, code, verifier } = await freshCode();
      const first = await tokenPost(a, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: clientId });
      expect(first.status).toBe(200);
      // A rotated one: the product of a refresh, rotated again by the next.
      const rotated = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: clientId });
      expect(rotated.status).toBe(200);
      const answers = await all(servers(), (server) => tokenPost(server, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token!, client_id: clientId }));
      winners.push(answers.filter((r) => r.status === 200).length);
      const won = onlyWinner(answers);
      expect(won.refresh_token).toBeTruthy();
      expect(won.refresh_token).not.toBe(rotated.body.refresh_token);
      await expectGrantRevoked(servers(), clientId, won);
      // Every refresh token of the grant is gone (refused, not forked into chains of their own).
      for (const old of [first.body.refresh_token!, rotated.body.refresh_token!]) {
        expect((await tokenPost(a, { grant_type: 'refresh_token', refresh_token: old, client_id: clientId })).body.error).toBe('invalid_grant');
      }
    }
    console.log(`[single use] refresh token presented ${PARALLEL}× at once on ${servers().length} instance(s): successes per round ${winners.join(', ')}`);
  });
});

describe('a pushed authorization request (RFC 9126) is used once', () => {
  it(`${PARALLEL} parallel authorizations with one request_uri, on two instances: one code, the others invalid_request_uri`, async () => {
    // A web client (an https redirect URI: no consent page on every authorization, unlike loopback ones),
    // first party, and a browser signed in with its grant: an authorization goes straight to the code.
    const webRedirect = 'https://app.example.com/callback';
    const { client } = await makeClient(a, { account_id: owner.accountId, redirect_uris: [webRedirect], first_party: true });
    await authorizeOverHttp({ issuer: a.issuer, clientId: client._id, redirectUri: webRedirect, scope: 'read', email: owner.email, password: owner.password }, jar);
    const pushed = await fetch(`${a.issuer}/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: client._id,
        redirect_uri: webRedirect,
        response_type: 'code',
        scope: 'read',
        state: 'par-race',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString(),
    });
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const path = `/oauth/authorize?${new URLSearchParams({ client_id: client._id, request_uri: requestUri })}`;
    const cookie = jar.header('/oauth/authorize');
    const answers = await race(PARALLEL, async (i) => {
        const response = await fetch(`${[a, b][i % 2]!.url}${path}`, { headers: { cookie }, redirect: 'manual' });
        const text = await response.text();
        const location = response.headers.get('location');
        if (location) return new URL(location, a.url);
        // Refused before the redirect URI was confirmed (the request found already used as it was loaded): the error page.
        expect(response.status).toBe(400);
        const code = /Error code: <code>([a-z_]+)<\/code>/.exec(text)?.[1];
        return new URL(`${webRedirect}?error=${code}`);
      });
    expect(answers.every((l) => l.href.startsWith(webRedirect)), JSON.stringify(answers.map((l) => l.href))).toBe(true);
    const codes = answers.filter((l) => l.searchParams.get('code'));
    expect(codes.length, JSON.stringify(answers.map((l) => l.href))).toBe(1);
    for (const other of answers.filter((l) => !codes.includes(l))) expect(other.searchParams.get('error')).toBe('invalid_request_uri');
  });
});

describe('the authorization resumes once', () => {
  it('parallel resumes of one interaction (same browser), on two instances: one goes on, the others get the error page', async () => {
    const clientId = await tokens.publicClient(owner.accountId, true);
    // Sign in on a jar of its own and stop before the last hop: the resume URL with its cookies.
    const own = new CookieJar();
    await authorizeOverHttp({ issuer: a.issuer, clientId, redirectUri: REDIRECT_URI, scope: 'read', email: owner.email, password: owner.password }, own);
    const authorize = new URL(`${a.issuer}/authorize`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'read',
      state: 'resume-race',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      prompt: 'login',
    }).toString();
    // prompt=login: the interaction asks for the password again.
    let response = await fetch(authorize, { headers: { cookie: own.header(authorize.pathname) }, redirect: 'manual' });
    own.store(response);
    const interaction = new URL(response.headers.get('location')!, authorize);
    expect(interaction.pathname).toMatch(/^\/oauth\/interaction\//);
    response = await fetch(`${interaction.href}/login`, {
      method: 'POST',
      headers: { cookie: own.header(interaction.pathname), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: owner.email, password: owner.password }).toString(),
      redirect: 'manual',
    });
    own.store(response);
    expect(response.status).toBe(303);
    const resume = new URL(response.headers.get('location')!, interaction);
    const cookie = own.header(resume.pathname);
    const answers = await race(PARALLEL, (i) =>
        fetch(resume.href.replace(a.url, [a, b][i % 2]!.url), { headers: { cookie }, redirect: 'manual' }).then(async (r) => ({ status: r.status, location: r.headers.get('location'), text: await r.text() })),
      );
    // The one that resumed goes on (to the callback with a code, or the next step of the interaction).
    const resumed = answers.filter((r) => r.status === 303 && r.location);
    expect(resumed.length, JSON.stringify(answers.map((r) => [r.status, r.location]))).toBe(1);
    for (const other of answers.filter((r) => !resumed.includes(r))) {
      expect(other.status, other.text.slice(0, 200)).toBe(400);
      expect(other.text).toContain('Error code: <code>invalid_request</code>');
      expect(other.text).toMatch(/interaction session (already used|not found)/);
    }
  });
});
