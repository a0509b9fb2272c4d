import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, openInteraction } from '../support/oauthDriver.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';

/*
 * Login throttling is keyed by (e-mail, source address), by source address, and by e-mail over all
 * sources with a high ceiling. The servers here trust X-Forwarded-For (TRUST_PROXY), as behind a proxy,
 * so each request can come from a source address of the test's choosing.
 */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

function loginHelpers(server: () => TestServer) {
  let clientId: string;
  beforeAll(async () => {
    const owner = await makeUser(server());
    clientId = (await makeClient(server(), { account_id: owner.account_id, redirect_uris: [REDIRECT_URI], first_party: true })).client._id;
  });

  /** Opens a sign-in from `source` in a fresh cookie jar; returns where its login form posts. */
  async function openLogin(source: string) {
    const jar = new CookieJar();
    const url = await openInteraction({ issuer: server().issuer, clientId, redirectUri: REDIRECT_URI, headers: { 'x-forwarded-for': source } }, jar);
    expect(url.pathname).toMatch(/^\/oauth\/interaction\/[^/]+$/);
    const action = new URL(`${url.pathname}/login`, url);
    return {
      /** Posts the login form; 303 signed in, 401 wrong password, 429 throttled. */
      async attempt(email: string, password: string): Promise<number> {
        const res = await fetch(action, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: jar.header(action.pathname), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': source },
          body: new URLSearchParams({ email, password }).toString(),
        });
        await res.body?.cancel();
        return res.status;
      },
    };
  }
  return { openLogin };
}

const source = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
const times = async (n: number, fn: () => Promise<number>) => {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push(await fn());
  return statuses;
};

describe('with the default limits', () => {
  const server = useTestServer({ overrides: { trustProxy: true } });
  const { openLogin } = loginHelpers(() => server);

  it('wrong passwords from one source stop that source only: the right password works from another', async () => {
    expect(server.config).toMatchObject({ loginPerEmailAndSourcePerMinute: 10, loginPerSourcePerMinute: 30, loginPerEmailPerMinute: 100 });
    const user = await makeUser(server);
    server.clock.startOfNextWindow();
    const attacker = await openLogin('203.0.113.7');
    expect(await times(10, () => attacker.attempt(user.email, 'wrong password guess'))).toEqual(Array(10).fill(401));
    expect(await attacker.attempt(user.email, user.password)).toBe(429);

    const real = await openLogin('192.0.2.44');
    expect(await real.attempt(user.email, user.password)).toBe(303);
  });

  it('password spraying from one source is stopped after 30 attempts a minute, whatever the e-mails', async () => {
    server.clock.startOfNextWindow();
    const sprayer = await openLogin('203.0.113.99');
    const statuses = await times(31, () => sprayer.attempt(`nobody-${randomBytes(4).toString('hex')}@example.com`, 'Summer2026!'));
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses[30]).toBe(429);
    // Another source is not affected.
    const user = await makeUser(server);
    expect(await (await openLogin(source())).attempt(user.email, user.password)).toBe(303);
  });
});

describe('the per e-mail ceiling over all sources', () => {
  const server = useTestServer({ overrides: { trustProxy: true, loginPerEmailPerMinute: 25 } });
  const { openLogin } = loginHelpers(() => server);

  it('stops distributed guessing at one e-mail once the ceiling is reached', async () => {
    const user = await makeUser(server);
    server.clock.startOfNextWindow();
    const statuses: number[] = [];
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      const attacker = await openLogin(address);
      statuses.push(...(await times(10, () => attacker.attempt(user.email, 'wrong password guess'))));
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
  });
});
