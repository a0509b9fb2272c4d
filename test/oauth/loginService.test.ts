import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignInResult } from '../../src/services/login.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer, useTwoInstances } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

/*
 * The sign-in rules of the authorization server's login page, through the login service itself (the
 * page's own behaviour over HTTP is in loginThrottling, loginSources and pages). Budgets are per minute,
 * in fixed windows: a sequence that must fall in one window starts at the start of one (the server's clock is moved there).
 */
const source = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
const outcomes = (results: SignInResult[], outcome: SignInResult['outcome']) => results.filter((r) => r.outcome === outcome);

describe('the login service', () => {
  const server = useTestServer();

  it('signs a user in with the right password and records it; a wrong password and an unknown e-mail are refused alike', async () => {
    const user = await makeUser(server);
    const { login } = server.services;
    const from = source();
    expect(await login.signIn({ email: user.email, password: 'not the password', source: from })).toEqual({ outcome: 'refused', email: user.email });
    const nobody = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    expect(await login.signIn({ email: nobody, password: user.password, source: from })).toEqual({ outcome: 'refused', email: nobody });
    expect((await server.repos.users.findById(user._id))?.last_login_at ?? null).toBeNull();

    // The e-mail is compared trimmed and in lower case.
    const typed = `  ${user.email.toUpperCase()} `;
    expect(await login.signIn({ email: typed, password: user.password, source: from })).toEqual({ outcome: 'signed-in', userId: user._id, email: user.email });
    expect((await server.repos.users.findById(user._id))?.last_login_at).toBeInstanceOf(Date);
  });

  it('of many wrong attempts at once at one e-mail from one source, exactly the budget is checked; the rest wait', async () => {
    const user = await makeUser(server);
    const budget = server.config.loginPerEmailAndSourcePerMinute;
    const from = source();
    server.clock.startOfNextWindow();
    const results = await race(budget * 2, () => server.services.login.signIn({ email: user.email, password: 'wrong guess', source: from }));
    expect(outcomes(results, 'refused')).toHaveLength(budget);
    const throttled = outcomes(results, 'throttled') as Extract<SignInResult, { outcome: 'throttled' }>[];
    expect(throttled).toHaveLength(budget);
    for (const t of throttled) {
      expect(t.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(t.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    // Even the right password waits now, from that source…
    expect((await server.services.login.signIn({ email: user.email, password: user.password, source: from })).outcome).toBe('throttled');
    // …but not from another one.
    expect((await server.services.login.signIn({ email: user.email, password: user.password, source: source() })).outcome).toBe('signed-in');
  });

  it('101 wrong passwords at once from one source do not reach the per-e-mail ceiling: the right password works from another', async () => {
    const user = await makeUser(server);
    const { loginPerEmailAndSourcePerMinute: perPair, loginPerEmailPerMinute: ceiling } = server.config;
    const from = source();
    server.clock.startOfNextWindow();
    const results = await race(ceiling + 1, (i) => server.services.login.signIn({ email: user.email, password: `guess-${i}`, source: from }));
    expect(outcomes(results, 'refused')).toHaveLength(perPair);
    expect(outcomes(results, 'throttled')).toHaveLength(ceiling + 1 - perPair);
    // Only the attempts that were checked count toward the ceiling: one source alone cannot reach it.
    expect((await server.services.login.signIn({ email: user.email, password: user.password, source: source() })).outcome).toBe('signed-in');
  });

  it('a browser that signed the user in before has a budget of its own; one known for another user does not', async () => {
    const user = await makeUser(server);
    const other = await makeUser(server);
    const from = source();
    server.clock.startOfNextWindow();
    for (let i = 0; i <= server.config.loginPerEmailAndSourcePerMinute; i++)
      await server.services.login.signIn({ email: user.email, password: `guess-${i}`, source: from });
    const device = { userId: user._id, deviceId: randomBytes(16).toString('base64url') };
    expect((await server.services.login.signIn({ email: user.email, password: user.password, source: from })).outcome).toBe('throttled');
    expect((await server.services.login.signIn({ email: user.email, password: user.password, source: from, device: { ...device, userId: other._id } })).outcome).toBe('throttled');
    expect(await server.services.login.signIn({ email: user.email, password: user.password, source: from, device })).toMatchObject({ outcome: 'signed-in', userId: user._id });
  });

  it('names the client and tells the consent page who registered it', async () => {
    const user = await makeUser(server);
    const elsewhere = await makeUser(server);
    const { client } = await makeClient(server, { account_id: elsewhere.account_id, client_name: 'Look-alike App' });
    const named = await server.services.login.client(client._id);
    expect(named).toEqual({ id: client._id, name: 'Look-alike App', firstParty: false, accountId: elsewhere.account_id });
    const account = await server.repos.accounts.findById(elsewhere.account_id);
    expect(await server.services.login.consentFacts(named, user._id)).toEqual({ userEmail: user.email, registeredBy: account!.name, otherOrganization: true });
    expect((await server.services.login.consentFacts(named, elsewhere._id)).otherOrganization).toBe(false);
    expect(await server.services.login.client('cli_unknown')).toEqual({ id: 'cli_unknown', name: 'cli_unknown', firstParty: false, accountId: null });
  });
});

describe('the login service on two instances of one database', () => {
  const two = useTwoInstances();
  let first: TestServer, second: TestServer;
  beforeAll(() => ({ first, second } = two));

  it('many wrong attempts at once over both instances: the per (e-mail, source) budget holds', async () => {
    const user = await makeUser(first);
    const budget = first.config.loginPerEmailAndSourcePerMinute;
    const from = source();
    first.clock.startOfNextWindow();
    const results = await race(budget * 3, (i) => (i % 2 ? second : first).services.login.signIn({ email: user.email, password: `guess-${i}`, source: from }));
    const refused = outcomes(results, 'refused').length;
    console.log(`[login budget] ${budget * 3} attempts at once over two instances, budget ${budget}: ${refused} checked, ${results.length - refused} throttled`);
    expect(refused).toBe(budget);
    expect(outcomes(results, 'throttled')).toHaveLength(budget * 2);
    for (const on of [first, second]) expect((await on.services.login.signIn({ email: user.email, password: user.password, source: from })).outcome).toBe('throttled');
  });

  it('101 wrong passwords at once from one source over both instances leave the right password working from another', async () => {
    const user = await makeUser(first);
    const { loginPerEmailAndSourcePerMinute: perPair, loginPerEmailPerMinute: ceiling } = first.config;
    const from = source();
    first.clock.startOfNextWindow();
    const results = await race(ceiling + 1, (i) => (i % 2 ? second : first).services.login.signIn({ email: user.email, password: `guess-${i}`, source: from }));
    expect(outcomes(results, 'refused')).toHaveLength(perPair);
    for (const on of [first, second]) expect((await on.services.login.signIn({ email: user.email, password: user.password, source: source() })).outcome).toBe('signed-in');
  });
});
