import { beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/services/passwords.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { setupLinkUrl } from '../../src/presenters/users.ts';
import { makeUser } from '../support/factories.ts';
import { openLinkPage } from '../support/linkPages.ts';
import { CookieJar } from '../support/oauthDriver.ts';
import { useTwoInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/*
 * The dashboard's single-use things, each used by PARALLEL requests at once, on one instance and spread
 * over two on one database, for ROUNDS rounds: a sign-in (its state and code, at /dashboard/callback)
 * opens exactly one session, and a setup link sets exactly one password.
 */
const PARALLEL = 20;
const ROUNDS = 5;
const OVERRIDES = {
  loginPerEmailAndSourcePerMinute: 10_000,
  loginPerSourcePerMinute: 10_000,
  loginPerEmailPerMinute: 10_000,
  tokenRateLimitPerMinute: 1_000_000,
  webhookPollIntervalMs: 60_000,
};

let a: TestServer, b: TestServer;
let owner: TestUser;

const two = useTwoInstances({ overrides: OVERRIDES });
beforeAll(async () => {
  ({ first: a, second: b } = two);
  const tokens = new Tokens(a);
  owner = await tokens.user('owner');
}, 120_000);

/** `url` on `server` (both instances serve the same public URL on ports of their own). */
const on = (server: TestServer, url: string) => url.replace(a.url, server.url);

/**
 * Signs in to the dashboard over plain HTTP, as a browser does, and stops at the redirect back to
 * /dashboard/callback: its URL (code, state, iss) and the browser's cookies (the signed sign-in state).
 */
async function signInUntilCallback(user: TestUser): Promise<{ callback: string; jar: CookieJar }> {
  const jar = new CookieJar();
  let url = new URL(`${a.url}/dashboard/login`);
  let init: RequestInit = {};
  for (let hop = 0; hop < 12; hop += 1) {
    const cookie = jar.header(url.pathname);
    const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), ...(cookie ? { cookie } : {}) }, redirect: 'manual' });
    jar.store(response);
    const location = response.headers.get('location');
    if (location) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.pathname === '/dashboard/callback') return { callback: next.href, jar };
      url = next;
      init = {};
      continue;
    }
    const html = await response.text();
    expect(response.status, html.slice(0, 300)).toBe(200);
    expect(html).toContain('name="password"');
    url = new URL(`${url.pathname}/login`, url);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
    };
  }
  throw new Error('no redirect to /dashboard/callback');
}

async function sessionsOf(userId: string): Promise<number> {
  return await a.repos.sessions.collection.countDocuments({ user_id: userId });
}

describe.each([
  ['one instance', () => [a]],
  ['two instances on one database', () => [a, b]],
])('on %s', (_name, servers) => {
  it(`${PARALLEL} parallel callbacks of one dashboard sign-in, ${ROUNDS} rounds: one session each round`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const { callback, jar } = await signInUntilCallback(owner);
      const cookie = jar.header('/dashboard/callback');
      const sessionsBefore = await sessionsOf(owner.id);
      const answers = await race(PARALLEL, async (i) => {
          const response = await fetch(on(servers()[i % servers().length]!, callback), { headers: { cookie }, redirect: 'manual' });
          return { status: response.status, location: response.headers.get('location'), cookies: response.headers.getSetCookie(), text: await response.text() };
        });
      const signedIn = answers.filter((r) => r.status === 302);
      winners.push(signedIn.length);
      expect(signedIn.length, JSON.stringify(answers.map((r) => r.status))).toBe(1);
      expect(signedIn[0]!.location).toBe('/dashboard');
      expect(signedIn[0]!.cookies.some((c) => /^slipway_session=slws_/.test(c))).toBe(true);
      for (const other of answers.filter((r) => r.status !== 302)) {
        expect(other.status).toBe(400);
        expect(other.text).toContain('Sign-in failed');
        expect(other.cookies.some((c) => /^slipway_session=slws_/.test(c))).toBe(false);
      }
      expect(await sessionsOf(owner.id)).toBe(sessionsBefore + 1);
    }
    console.log(`[single use] dashboard callback sent ${PARALLEL}× at once on ${servers().length} instance(s): sessions per round ${winners.join(', ')}`);
  });

  it(`${PARALLEL} parallel posts of one setup link, ${ROUNDS} rounds: one password each round`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const email = `setup.race.${servers().length}.${round}.${Date.now()}@example.com`;
      // A member of the owner's account, and a setup link (a password reset) for them.
      const member = await makeUser(a, { email, name: 'Setup Race', role: 'developer', account_id: owner.accountId });
      const user = { id: member._id };
      const { token } = await a.services.users.issueSetupToken(systemPrincipal(owner.accountId), member._id);
      // The form, opened once: its signed double-submit cookie and field.
      const { status, cookie, csrf } = await openLinkPage(setupLinkUrl(a.url, token));
      expect(status).toBe(200);
      const passwords = Array.from({ length: PARALLEL }, (_, i) => `racing passphrase ${round}-${i}`);
      const answers = await Promise.all(
        passwords.map(async (password, i) => {
          const response = await fetch(`${servers()[i % servers().length]!.url}/dashboard/setup`, {
            method: 'POST',
            redirect: 'manual',
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
            body: new URLSearchParams({ token, _csrf: csrf, password, confirm_password: password }),
          });
          await response.body?.cancel();
          return response.status;
        }),
      );
      winners.push(answers.filter((s) => s === 303).length);
      expect(answers.filter((s) => s === 303).length, JSON.stringify(answers)).toBe(1);
      expect(answers.filter((s) => s !== 303).every((s) => s === 400), JSON.stringify(answers)).toBe(true);
      const hash = (await a.repos.identities.findById(member.identity_id!))!.password_hash!;
      const winner = passwords[answers.indexOf(303)]!;
      expect(await verifyPassword(hash, winner)).toBe(true);
      expect(await a.repos.events.collection.countDocuments({ type: 'user.password_set', 'data.user_id': user.id })).toBe(1);
    }
    console.log(`[single use] setup link posted ${PARALLEL}× at once on ${servers().length} instance(s): passwords set per round ${winners.join(', ')}`);
  });
});
