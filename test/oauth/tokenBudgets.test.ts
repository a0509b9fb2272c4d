import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenPost, type TokenAnswer } from '../support/concurrency.ts';
import { basicAuth } from '../support/oauthDriver.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTwoInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

/*
 * Token endpoint budgets (docs/security.md, "Token endpoint budgets"). Two instances share one database; both
 * trust 127.0.0.1 as their proxy, so each request's source is the X-Forwarded-For address the test
 * writes (as a proxy on that address would).
 */
const overrides = { trustedProxies: ['127.0.0.1'] };
let a: TestServer;
let b: TestServer;

const two = useTwoInstances({ overrides });
beforeAll(() => ({ first: a, second: b } = two));

/** The token endpoint of `server` (its own address), as a request from `source` behind the trusted proxy. */
const token = (server: TestServer, source: string, form: Record<string, string>, authorization?: string) =>
  tokenPost(server, form, { 'x-forwarded-for': source, ...(authorization ? { authorization } : {}) });

/** `n` requests, `concurrency` at a time, alternating between the two instances; the statuses, in order. */
async function flood(n: number, concurrency: number, send: (server: TestServer, i: number) => Promise<TokenAnswer>, servers = [a, b]): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < n; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, n - start) }, async (_, j) => {
      const i = start + j;
      const res = await send(servers[i % servers.length]!, i);
      if (res.status === 429) {
        expect(res.body.error).toBe('rate_limited');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      return res.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('junk naming a client from one source', () => {
  it('1,000 wrong secrets for a confidential client throttle their source; the client still gets tokens from another', async () => {
    expect(a.config).toMatchObject({ tokenFailuresPerClientAndSourcePerMinute: 30, tokenFailuresPerSourcePerMinute: 300, tokenRateLimitPerMinute: 600 });
    const owner = await makeUser(a);
    const { client, clientSecret } = await makeClient(a, { account_id: owner.account_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: [] });
    a.clock.startOfNextWindow();
    const junk = '203.0.113.66';
    const statuses = await flood(1000, 50, (server) => token(server, junk, { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, 'not-the-secret')));
    const counts = tally(statuses);
    console.log('wrong secrets, 1,000 at 50 at a time over two instances:', counts);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(1000);
    // 30 failures per (client, source) a minute. Requests already in flight when the budget ran out
    // still fail normally, and each instance stops at the latest when its own count reaches the budget
    // (FerretDB may lose concurrent increments from two instances): at most 2 × (30 + 25 in flight).
    expect(counts[401]).toBeGreaterThanOrEqual(30);
    expect(counts[401]).toBeLessThanOrEqual(2 * (30 + 25));
    expect(statuses.slice(-100).every((s) => s === 429)).toBe(true);

    // The real client, from its own address, on either instance.
    for (const server of [a, b]) {
      const ok = await token(server, '192.0.2.10', { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, clientSecret!));
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.access_token).toBeTruthy();
    }
    // The junk source is refused even with the right secret: it is throttled, not the client.
    const fromJunk = await token(a, junk, { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, clientSecret!));
    expect(fromJunk.status).toBe(429);
  });

  it('on one instance too: 300 wrong secrets at once from one source, at most one batch past the budget', async () => {
    const owner = await makeUser(a);
    const { client, clientSecret } = await makeClient(a, { account_id: owner.account_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: [] });
    a.clock.startOfNextWindow();
    const statuses = await flood(300, 100, (server) => token(server, '203.0.113.67', { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, 'nope')), [a]);
    const counts = tally(statuses);
    console.log('wrong secrets, 300 at 100 at a time on one instance:', counts);
    expect(counts[401]).toBeGreaterThanOrEqual(30);
    expect(counts[401]).toBeLessThanOrEqual(30 + 100);
    expect(statuses.slice(-100).every((s) => s === 429)).toBe(true);
    expect((await token(a, '203.0.113.68', { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, clientSecret!))).status).toBe(200);
  });

  it('1,000 junk refresh tokens for a public client throttle their source; its real refresh token works from another', async () => {
    const tokens = new Tokens(a);
    const user = await tokens.user('developer');
    const { refresh_token: refreshToken, clientId } = await tokens.forUser(user, 'read', { withRefresh: true });
    expect(refreshToken).toBeTruthy();
    a.clock.startOfNextWindow();
    const junk = '2001:db8:66:1::5';
    const statuses = await flood(1000, 50, (server, i) => token(server, junk, { grant_type: 'refresh_token', client_id: clientId, refresh_token: `junk-${i}-${randomBytes(8).toString('hex')}` }));
    const counts = tally(statuses);
    console.log('junk refresh tokens, 1,000 at 50 at a time over two instances:', counts);
    expect((counts[400] ?? 0) + (counts[429] ?? 0)).toBe(1000);
    expect(counts[400]).toBeGreaterThanOrEqual(30);
    expect(counts[400]).toBeLessThanOrEqual(2 * (30 + 25));
    // Another address of the same /64 is the same source.
    expect((await token(b, '2001:db8:66:1::99', { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken! })).status).toBe(429);

    // (On the instance that issued it: each test instance has a PUBLIC_URL, so an audience, of its own.)
    const ok = await token(a, '2001:db8:77::1', { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken! });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describe('spraying from one source', () => {
  it('failures at many clients from one source are cut off at the per-source budget; other sources are not', async () => {
    const owner = await makeUser(a);
    const { client, clientSecret } = await makeClient(a, { account_id: owner.account_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: [] });
    a.clock.startOfNextWindow();
    const sprayer = '198.51.100.23';
    // A different (made-up) client id each time: no (client, source) budget ever fills, the source's does.
    const statuses = await flood(800, 40, (server, i) => token(server, sprayer, { grant_type: 'client_credentials', scope: 'read' }, basicAuth(`cli_sprayed${i}`, 'guess')));
    const counts = tally(statuses);
    console.log('spraying 800 client ids from one source, 40 at a time over two instances:', counts);
    expect(counts[401]).toBeGreaterThanOrEqual(300);
    expect(counts[401]).toBeLessThanOrEqual(2 * (300 + 20));
    expect(statuses.slice(-100).every((s) => s === 429)).toBe(true);
    // Refused before the request is read: even a request naming no client.
    expect((await token(a, sprayer, { grant_type: 'client_credentials' })).status).toBe(429);

    const ok = await token(b, '198.51.100.24', { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, clientSecret!));
    expect(ok.status).toBe(200);
  });
});

describe('the per-client total with requests in flight', () => {
  /** A confidential client_credentials client of a new account, and one token request for it (from one source). */
  async function confidentialClient() {
    const owner = await makeUser(a);
    const { client, clientSecret } = await makeClient(a, { account_id: owner.account_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: [] });
    return (server: TestServer) => token(server, '192.0.2.60', { grant_type: 'client_credentials', scope: 'read' }, basicAuth(client._id, clientSecret!));
  }

  for (const [instances, servers] of [
    ['one instance', () => [a]],
    ['two instances', () => [a, b]],
  ] as const) {
    it(`never issues more than 600 a minute with 8 requests in flight, on ${instances}`, async () => {
      const limit = a.config.tokenRateLimitPerMinute;
      const send = await confidentialClient();
      a.clock.startOfNextWindow();
      const statuses = await flood(limit + 40, 8, (server) => send(server), servers());
      const counts = tally(statuses);
      console.log(`client_credentials, ${limit + 40} at 8 at a time on ${instances}:`, counts);
      expect((counts[200] ?? 0) + (counts[429] ?? 0)).toBe(limit + 40);
      expect(counts[200]).toBeLessThanOrEqual(limit);
      // One instance issues exactly the budget; two may leave unused at most what each holds of it
      // (a share: 1% of the budget, 6 tokens), and here both keep asking to the end.
      expect(counts[200]).toBeGreaterThanOrEqual(instances === 'one instance' ? limit : limit - 2 * 6);
      expect(statuses.slice(-8).every((s) => s === 429)).toBe(true);
    });
  }
});

describe('a request that fails gives its token back', () => {
  let small: TestServer;
  let smallB: TestServer;
  const SMALL = 10;
  const two = useTwoInstances({ overrides: { ...overrides, tokenRateLimitPerMinute: SMALL } });
  beforeAll(() => ({ first: small, second: smallB } = two));

  it('40 junk refresh tokens at once for a public client (it authenticates by its id alone) hold its tokens only while in flight: none is spent, on two instances', async () => {
    const tokens = new Tokens(small);
    const user = await tokens.user('developer');
    small.clock.startOfNextWindow();
    // The sign-in's code exchange is the client's first token of the minute.
    const first = await tokens.forUser(user, 'read', { withRefresh: true });
    const clientId = first.clientId;
    let refreshToken = first.refresh_token;
    const junk = await flood(40, 40, (server, i) => token(server, `192.0.2.${70 + (i % 4)}`, { grant_type: 'refresh_token', client_id: clientId, refresh_token: `junk-${i}` }), [small, smallB]);
    // Each holds one of the client's tokens while it is handled: those that found none left wait (429),
    // the others fail (400) and give theirs back.
    const counts = tally(junk);
    console.log('junk refresh tokens, 40 at once over two instances, budget 10:', counts);
    expect((counts[400] ?? 0) + (counts[429] ?? 0)).toBe(40);
    expect(counts[400]).toBeGreaterThanOrEqual(SMALL - 1);
    // Its real refreshes, alternating instances, until both refuse: the 9 tokens left. (A token given
    // back returns to the instance that held it, so one instance may run out before the other.)
    let issued = 0;
    const refusing = new Set<TestServer>();
    for (let i = 0; refusing.size < 2 && i < 3 * SMALL; i++) {
      const server = [small, smallB][i % 2]!;
      if (refusing.has(server)) continue;
      const res = await token(server, '192.0.2.80', { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken! });
      const { body } = res;
      if (res.status === 200) {
        issued++;
        refreshToken = body.refresh_token;
      } else {
        expect([res.status, body.error]).toEqual([429, 'rate_limited']);
        refusing.add(server);
      }
    }
    expect(issued).toBe(SMALL - 1);
  });
});

describe('the per-client total', () => {
  it('counts issued tokens only: failures never spend it', async () => {
    const owner = await makeUser(a);
    const { client } = await makeClient(a, { account_id: owner.account_id, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], redirect_uris: [] });
    a.clock.startOfNextWindow();
    // 20 failures from each of 40 sources: 800 failures naming the client, more than its 600.
    const statuses = await flood(800, 50, (server, i) => token(server, `192.0.2.${100 + (i % 40)}`, { grant_type: 'client_credentials' }, basicAuth(client._id, 'wrong')));
    expect(tally(statuses)).toEqual({ 401: 800 });
    const counter = await a.repos.rateLimits.collection.findOne({ _id: { $regex: `^token:${client._id}:` } });
    expect(counter).toBeNull();
  });
});
