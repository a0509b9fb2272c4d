import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, openInteraction } from '../support/oauthDriver.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer, useTwoInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

/*
 * Login throttling by the real client address behind a trusted proxy (127.0.0.1, where the test
 * connects from), IPv6 sources by /64, and the device cookie that keeps a user's own browser out of the
 * per-e-mail ceiling.
 */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** Sign-ins on `servers` (the first opens them); `forwardedFor` is the whole X-Forwarded-For header sent. */
function loginHelpers(servers: () => TestServer[]) {
  let clientId: string;
  beforeAll(async () => {
    const owner = await makeUser(servers()[0]!);
    clientId = (await makeClient(servers()[0]!, { account_id: owner.account_id, redirect_uris: [REDIRECT_URI], first_party: true })).client._id;
  });

  async function openLogin(forwardedFor: string, jar = new CookieJar()) {
    const url = await openInteraction({ issuer: servers()[0]!.issuer, clientId, redirectUri: REDIRECT_URI, headers: { 'x-forwarded-for': forwardedFor } }, jar);
    expect(url.pathname).toMatch(/^\/oauth\/interaction\/[^/]+$/);
    const interactionPath = `${url.pathname}/login`;
    return {
      jar,
      /** Posts the login form (to instance `on`, default the first); 303 signed in, 401 wrong password, 429 throttled. */
      async attempt(email: string, password: string, on = 0, xff = forwardedFor): Promise<number> {
        const action = new URL(interactionPath, servers()[on]!.url);
        const res = await fetch(action, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: jar.header(action.pathname), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': xff },
          body: new URLSearchParams({ email, password }).toString(),
        });
        jar.store(res);
        await res.body?.cancel();
        return res.status;
      },
    };
  }
  return { openLogin };
}

/** A new browser holding only the device cookie of `jar` (so no signed-in session), its id changed by `edit`. */
function deviceOnly(jar: CookieJar, edit = (cookie: string) => cookie): CookieJar {
  const headers = new Headers();
  for (const cookie of jar.header('/oauth/interaction/x/login').split('; ').filter((c) => c.startsWith('slipway_device')))
    headers.append('set-cookie', `${edit(cookie)}; path=/oauth/interaction`);
  const copy = new CookieJar();
  copy.store(new Response(null, { headers }));
  return copy;
}

const forged = () => `${1 + Math.floor(Math.random() * 222)}.${Math.floor(Math.random() * 255)}.7.${Math.floor(Math.random() * 255)}`;
const nobody = () => `nobody-${randomBytes(4).toString('hex')}@example.com`;

describe('behind a trusted proxy, two instances', () => {
  const overrides = { trustedProxies: ['127.0.0.1'] };
  let a: TestServer;
  let b: TestServer;
  const two = useTwoInstances({ overrides });
  beforeAll(() => ({ first: a, second: b } = two));
  const { openLogin } = loginHelpers(() => [a, b]);

  it('spraying with forged left-most X-Forwarded-For entries is counted by the real address: 30 at once, then 429', async () => {
    a.clock.startOfNextWindow();
    const real = '203.0.113.120';
    const sprayer = await openLogin(`${forged()}, ${real}`);
    // 45 at once on one instance, each claiming another source on the left.
    const statuses = await race(45, () => sprayer.attempt(nobody(), 'Summer2026!', 0, `${forged()}, ${forged()}, ${real}`));
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    // The other instance counts in the same place.
    expect(await sprayer.attempt(nobody(), 'Summer2026!', 1, `${forged()}, ${real}`)).toBe(429);
    const user = await makeUser(a);
    expect(await (await openLogin('203.0.113.121')).attempt(user.email, user.password)).toBe(303);
  });

  it('101 wrong passwords at once from one source (10 checked, 91 refused) leave the right password working from another browser and source', async () => {
    const user = await makeUser(a);
    a.clock.startOfNextWindow();
    const attacker = await openLogin('127.0.0.2');
    const statuses = await race(101, (i) => attacker.attempt(user.email, `guess-${i}`, i % 2));
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(91);
    // The refused attempts never counted toward the per-e-mail ceiling: a new browser elsewhere gets in, on either instance.
    for (const on of [0, 1]) expect(await (await openLogin(`192.0.2.${210 + on}`)).attempt(user.email, user.password, on)).toBe(303);
  });

  it('101+ forged attempts at one e-mail do not stop the owner’s browser that signed them in before (device cookie)', async () => {
    const user = await makeUser(a);
    const home = '192.0.2.200';
    const own = await openLogin(home);
    expect(await own.attempt(user.email, user.password)).toBe(303);
    expect(own.jar.header('/oauth/interaction/x/login')).toMatch(/slipway_device=/);

    a.clock.startOfNextWindow();
    // 11 real sources, 10 attempts each (their per-source and per-(e-mail, source) budgets), all claiming
    // to be the owner's address on the left, over both instances.
    const statuses: number[] = [];
    for (let k = 0; k < 11; k++) {
      const attacker = await openLogin(`${home}, 198.51.100.${k + 1}`);
      for (let i = 0; i < 10; i++) statuses.push(await attacker.attempt(user.email, `guess-${k}-${i}`, i % 2));
    }
    // The ceiling is 100 a minute; the owner's own sign-in above counts too when it fell in this minute.
    const failed = statuses.filter((s) => s === 401).length;
    expect(failed).toBeGreaterThanOrEqual(99);
    expect(failed).toBeLessThanOrEqual(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(110 - failed);

    // Without the cookie, the right password from the owner's own address waits for the minute…
    expect(await (await openLogin(home)).attempt(user.email, user.password)).toBe(429);
    // …a forged or foreign device cookie does not help…
    const tampered = deviceOnly(own.jar, (c) => c.replace(/\.([A-Za-z0-9_-]{22})$/, '.AAAAAAAAAAAAAAAAAAAAAA'));
    expect(await (await openLogin(home, tampered)).attempt(user.email, user.password)).toBe(429);
    // …but the browser that signed this user in before gets in, on either instance.
    for (const on of [0, 1]) expect(await (await openLogin(home, deviceOnly(own.jar))).attempt(user.email, user.password, on)).toBe(303);
  });
});

describe('IPv6 sources are counted by /64', () => {
  const server = useTestServer({ overrides: { trustedProxies: ['127.0.0.1'], loginPerSourcePerMinute: 5 } });
  const { openLogin } = loginHelpers(() => [server]);

  it('addresses in one /64 share the per-source budget; another /64 has its own; IPv4-mapped is IPv4', async () => {
    server.clock.startOfNextWindow();
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) statuses.push(await (await openLogin(`2001:db8:a:b::${i.toString(16)}`)).attempt(nobody(), 'x'));
    expect(statuses).toEqual(Array(5).fill(401));
    expect(await (await openLogin('2001:db8:a:b:ffff:1:2:3')).attempt(nobody(), 'x')).toBe(429);
    expect(await (await openLogin('2001:db8:a:c::1')).attempt(nobody(), 'x')).toBe(401);

    for (let i = 0; i < 5; i++) expect(await (await openLogin('::ffff:198.51.100.77')).attempt(nobody(), 'x')).toBe(401);
    expect(await (await openLogin('198.51.100.77')).attempt(nobody(), 'x')).toBe(429);
  });
});
