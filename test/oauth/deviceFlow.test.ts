import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { race, tokenPost, type TokenAnswer } from '../support/concurrency.ts';
import { approveDevice, DeviceBrowser, formsOf, requestDeviceCode, text, type DeviceAuthorization } from '../support/deviceDriver.ts';
import { dpopCall, dpopProof, newDpopKey, type DpopKey } from '../support/dpop.ts';
import { acceptInvitation } from '../support/factories.ts';
import { useTestServer, useTokenRaceInstances } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser } from '../support/tokens.ts';

/*
 * The device authorization grant (RFC 8628, docs/product.md §12) of the first-party CLI client
 * `slipway-cli`: a code asked for as the CLI does, approved by a person through the real pages (the code
 * form filled in from the link, the confirm page with Allow and Deny, the sign-in), polled at the token
 * endpoint with DPoP proofs; slow_down, expired_token and access_denied; code guesses throttled per
 * source; one token set for a device code however many pollers at once, on one instance and on two.
 */
const CLI = 'slipway-cli';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const PARALLEL = 20;
const UA = 'slipway-cli/0.1 (linux; test)';

let a: TestServer, b: TestServer;
let owner: TestUser;
// The token endpoint's budgets are lifted (a race's losers are failures from one source); the login
// budgets and the code page's (LOGIN_PER_SOURCE_PER_MINUTE, 30) are the defaults. Behind a trusted proxy
// (127.0.0.1, where the test connects from), each device and browser is a source of its own.
const instances = useTokenRaceInstances({ trustedProxies: ['127.0.0.1'] });
beforeAll(() => ({ first: a, second: b, owner } = instances));
const tokens = () => instances.tokens;

let sources = 0;
/** A source address of its own for each browser or device (behind the test's trusted proxy). */
const newSource = () => `198.51.${Math.floor(++sources / 250)}.${(sources % 250) + 1}`;

/** Asks for a device code as the CLI does, from `source`. */
async function deviceCode(server: TestServer, source: string, scope = 'read write'): Promise<DeviceAuthorization> {
  const { status, body } = await requestDeviceCode(server.url, { client_id: CLI, scope }, { 'x-forwarded-for': source, 'user-agent': UA });
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** One poll of the token endpoint with a DPoP proof of `key`. */
async function poll(server: TestServer, code: string, key: DpopKey): Promise<TokenAnswer> {
  const proof = await dpopProof(key, { htm: 'POST', htu: `${server.issuer}/token` });
  return await tokenPost(server, { grant_type: DEVICE_GRANT, device_code: code, client_id: CLI }, { dpop: proof });
}

describe('discovery', () => {
  it('advertises the device authorization endpoint and grant', async () => {
    const body = (await (await fetch(`${a.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(body.device_authorization_endpoint).toBe(`${a.issuer}/device/auth`);
    expect(body.grant_types_supported).toContain(DEVICE_GRANT);
  });
});

describe('the CLI signs in with a device code', () => {
  it('code asked, approved through the pages, polled with DPoP: bound tokens, a refresh token that is not rotated', async () => {
    const device = newSource();
    const started = await deviceCode(a, device);
    expect(started.user_code).toMatch(USER_CODE);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(5);
    expect(started.verification_uri).toBe(`${a.issuer}/device`);
    expect(new URL(started.verification_uri_complete).searchParams.get('user_code')).toBe(started.user_code);

    const key = await newDpopKey();
    const pending = await poll(a, started.device_code, key);
    expect(pending.status).toBe(400);
    expect(pending.body.error).toBe('authorization_pending');

    const browser = new DeviceBrowser(a.url, newSource());
    const { codeForm, confirm, done } = await approveDevice(browser, started.verification_uri_complete, owner);
    // The link fills the form in; the person sends it.
    const [form] = formsOf(codeForm);
    expect(form!.fields.user_code).toBe(started.user_code);
    expect(codeForm.html).toContain('<label for="user_code">');
    // The confirm page names the app, the permissions, the device's address and software, and the code.
    expect(confirm.status).toBe(200);
    expect(confirm.html).toMatch(/data-fact="app">Slipway CLI</);
    expect(confirm.html).toContain(`data-fact="device-address"><code>${device}</code>`);
    expect(confirm.html).toContain(`data-fact="device-user-agent">${UA}<`);
    expect(confirm.html).toContain(`<code>${started.user_code}</code>`);
    expect(confirm.html).toMatch(/<code>write<\/code> — Create and change/);
    expect(confirm.html).not.toContain('offline_access');
    expect(formsOf(confirm).flatMap((f) => f.buttons)).toEqual(['Allow', 'Deny']);
    expect(done.status).toBe(200);
    expect(text(done)).toContain('Device signed in');

    const tokens = await poll(a, started.device_code, key);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.token_type).toBe('DPoP');
    expect(tokens.body.scope).toBe('read write');
    expect(tokens.body.refresh_token).toBeTruthy();
    const claims = decodeJwt(tokens.body.access_token!);
    expect(claims.sub).toBe(owner.id);
    expect((claims.cnf as { jkt?: string }).jkt).toBe(key.thumbprint);
    // The API takes it with a proof of that key.
    const me = await dpopCall(a.url, '/v1/users/me', tokens.body.access_token!, await dpopProof(key, { htm: 'GET', htu: `${a.url}/v1/users/me`, accessToken: tokens.body.access_token! }));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe(owner.email);

    // Refreshed with a proof of the same key: a new access token, the same refresh token (sender-constrained, not rotated).
    const refreshed = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: CLI }, { dpop: await dpopProof(key, { htm: 'POST', htu: `${a.issuer}/token` }) });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.refresh_token).toBe(tokens.body.refresh_token);
    expect(refreshed.body.access_token).not.toBe(tokens.body.access_token);
    // Without a proof the CLI's client is refused: every token it gets is bound.
    const unbound = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: CLI });
    expect(unbound.status).toBe(400);
    expect(unbound.body.access_token).toBeUndefined();

    // The device code is spent: polled again, refused.
    const again = await poll(a, started.device_code, key);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');

    // Signing out (`logout`): the refresh token revoked, by the client's id alone; it refreshes no more.
    const revoked = await fetch(`${a.issuer}/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.body.refresh_token!, token_type_hint: 'refresh_token', client_id: CLI }).toString() });
    expect(revoked.status).toBe(200);
    const afterLogout = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token!, client_id: CLI }, { dpop: await dpopProof(key, { htm: 'POST', htu: `${a.issuer}/token` }) });
    expect(afterLogout.body.error).toBe('invalid_grant');
  });

  it('a person with two accounts chooses one on the account chooser: the device acts in that account', async () => {
    const person = await tokens().user('developer');
    const other = await tokens().user('owner');
    const { token } = await tokens().forClient(other.accountId, 'read write admin');
    const invited = await fetch(`${a.url}/v1/users`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: person.email, name: 'Two Accounts', role: 'viewer' }) });
    expect(invited.status).toBe(201);
    const membership = await acceptInvitation(a, (await invited.json()) as { invitation_url: string }, person.password);

    const started = await deviceCode(a, newSource());
    const { done } = await approveDevice(new DeviceBrowser(a.url, newSource()), started.verification_uri_complete, { ...person, account: other.accountId });
    expect(text(done)).toContain('Device signed in');
    const got = await poll(a, started.device_code, await newDpopKey());
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const claims = decodeJwt(got.body.access_token!);
    expect(claims.acct).toBe(other.accountId);
    expect(claims.sub).toBe(membership._id);

    // The device names the account (`account_hint`, as `login --account` does): no chooser.
    const hinted = await requestDeviceCode(a.url, { client_id: CLI, scope: 'read', account_hint: other.accountId }, { 'x-forwarded-for': newSource() });
    expect(hinted.status, JSON.stringify(hinted.body)).toBe(200);
    // Without an account to press, a chooser would end the walk there.
    const approval = await approveDevice(new DeviceBrowser(a.url, newSource()), hinted.body.verification_uri_complete, person);
    expect(text(approval.done)).toContain('Device signed in');
    const viaHint = await poll(a, hinted.body.device_code, await newDpopKey());
    expect(decodeJwt(viaHint.body.access_token!).acct).toBe(other.accountId);
  });

  it('the code form opened without a code is empty; a wrong code is shown again with the message at the field', async () => {
    const browser = new DeviceBrowser(a.url, newSource());
    const empty = await browser.open('/oauth/device');
    expect(empty.status).toBe(200);
    expect(formsOf(empty)[0]!.fields.user_code).toBe('');
    const wrong = await browser.press(empty, 'Continue', { user_code: 'BBBB-BBBB' });
    expect(wrong.status).toBe(400);
    expect(text(wrong)).toContain('That code is not right');
    expect(wrong.html).toContain('aria-invalid="true"');
    expect(formsOf(wrong)[0]!.fields.user_code).toBe('BBBB-BBBB');
  });
});

describe('polling, denial and expiry', () => {
  it('polling faster than the interval gets slow_down; after the interval, pending again', async () => {
    const started = await deviceCode(a, newSource());
    const key = await newDpopKey();
    expect((await poll(a, started.device_code, key)).body.error).toBe('authorization_pending');
    const tooSoon = await poll(b, started.device_code, key);
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.body.error).toBe('slow_down');
    a.clock.advance(5_000);
    expect((await poll(a, started.device_code, key)).body.error).toBe('authorization_pending');
    // Many at once within one interval: one of them is the poll of that interval, the rest slow_down.
    a.clock.advance(5_000);
    const burst = await race(10, (i) => poll(i % 2 ? b : a, started.device_code, key));
    expect(burst.map((r) => r.body.error).sort()).toEqual(['authorization_pending', ...Array<string>(9).fill('slow_down')]);
  });

  it('Deny: the denied page, and the device gets access_denied', async () => {
    const started = await deviceCode(a, newSource());
    const { done } = await approveDevice(new DeviceBrowser(a.url, newSource()), started.verification_uri_complete, owner, 'Deny');
    expect(done.status).toBe(200);
    expect(text(done)).toContain('Access denied');
    const answer = await poll(a, started.device_code, await newDpopKey());
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('access_denied');
  });

  it('after ten minutes on the server clock: expired_token for the device, the expired page for the person', async () => {
    const started = await deviceCode(a, newSource());
    // Expiry is kept in whole seconds: a second short of ten minutes is still pending, a second past is not.
    a.clock.advance(598_000);
    expect((await poll(a, started.device_code, await newDpopKey())).body.error).toBe('authorization_pending');
    a.clock.advance(3_000);
    const answer = await poll(b, started.device_code, await newDpopKey());
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('expired_token');
    const browser = new DeviceBrowser(a.url, newSource());
    const page = await browser.press(await browser.open(started.verification_uri_complete), 'Continue');
    expect(page.status).toBe(400);
    expect(text(page)).toContain('This code has expired');
  });
});

describe('guessing user codes is throttled per source (RFC 8628 §5.1)', () => {
  it('60 wrong codes from one source over two instances: 30 answered, 30 refused with 429; another source’s right code still works', async () => {
    a.clock.startOfNextWindow();
    const guesser = newSource();
    const answers = await race(60, async (i) => {
      const browser = new DeviceBrowser((i % 2 ? b : a).url, guesser);
      const form = await browser.open('/oauth/device');
      const page = await browser.press(form, 'Continue', { user_code: 'ZZZZ-ZZZZ' });
      return { status: page.status, retryAfter: page.headers.get('retry-after'), text: text(page) };
    });
    const refused = answers.filter((r) => r.status === 429);
    const checked = answers.filter((r) => r.status !== 429);
    expect(refused.length).toBe(30);
    for (const r of checked) expect(r).toMatchObject({ status: 400, text: expect.stringContaining('That code is not right') as string });
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThan(0);
    expect(refused[0]!.text).toContain('Too many attempts');

    // Another source, the right code: through.
    const started = await deviceCode(a, newSource());
    const { confirm, done } = await approveDevice(new DeviceBrowser(b.url, newSource()), started.verification_uri_complete, owner);
    expect(confirm.status).toBe(200);
    expect(text(done)).toContain('Device signed in');
    // The guessing source stays refused, even with a right code, until the window ends.
    const later = await deviceCode(a, newSource());
    const browser = new DeviceBrowser(a.url, guesser);
    expect((await browser.press(await browser.open(later.verification_uri_complete), 'Continue')).status).toBe(429);
    a.clock.startOfNextWindow();
    expect((await browser.press(await browser.open(later.verification_uri_complete), 'Continue')).status).toBe(200);
  });
});

describe.each([
  ['one instance', () => [a]],
  ['two instances on one database', () => [a, b]],
])('a device code redeemed once, on %s', (_name, servers) => {
  it(`${PARALLEL} pollers at once after approval, 4 rounds: one token set each round, the others invalid_grant; the winner's tokens keep working`, async () => {
    const winnersPerRound: number[] = [];
    for (let round = 0; round < 4; round++) {
      const started = await deviceCode(a, newSource());
      await approveDevice(new DeviceBrowser(a.url, newSource()), started.verification_uri_complete, owner);
      const key = await newDpopKey();
      const answers = await race(PARALLEL, (i) => poll(servers()[i % servers().length]!, started.device_code, key));
      const winners = answers.filter((r) => r.status === 200);
      winnersPerRound.push(winners.length);
      expect(winners.length, JSON.stringify(answers.map((r) => [r.status, r.body.error_description]))).toBe(1);
      for (const loser of answers.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(400);
        expect(loser.body.error).toBe('invalid_grant');
        expect(loser.body.access_token).toBeUndefined();
      }
      // The grant stays: the one token set works on every instance, and refreshes.
      const won = winners[0]!.body;
      for (const server of servers()) {
        // Instances share PUBLIC_URL: the proof names it, whichever instance answers.
        const res = await dpopCall(server.url, '/v1/users/me', won.access_token!, await dpopProof(key, { htm: 'GET', htu: `${a.url}/v1/users/me`, accessToken: won.access_token! }));
        await res.body?.cancel();
        expect(res.status).toBe(200);
      }
      const refresh = await tokenPost(a, { grant_type: 'refresh_token', refresh_token: won.refresh_token!, client_id: CLI }, { dpop: await dpopProof(key, { htm: 'POST', htu: `${a.issuer}/token` }) });
      expect(refresh.status, JSON.stringify(refresh.body)).toBe(200);
      // Polled again later: refused the same way.
      expect((await poll(a, started.device_code, key)).body.error).toBe('invalid_grant');
    }
    console.log(`[single use] device code polled ${PARALLEL}× at once on ${servers().length} instance(s): token sets per round ${winnersPerRound.join(', ')}`);
  });
});

describe.each([
  ['one instance', () => [a]],
  ['two instances on one database', () => [a, b]],
])('a user code answered once, on %s', (_name, servers) => {
  it(`${PARALLEL} browsers press Allow on one code at once: one goes on to sign in, the others see the used-code page`, async () => {
    const started = await deviceCode(a, newSource());
    // Each browser (a source of its own) opens the link and reaches the confirm page first.
    const browsers = servers().flatMap((server) => Array.from({ length: PARALLEL / servers().length }, () => new DeviceBrowser(server.url, newSource())));
    const confirms = await Promise.all(browsers.map(async (browser) => await browser.press(await browser.open(started.verification_uri_complete), 'Continue')));
    for (const confirm of confirms) expect(formsOf(confirm).flatMap((f) => f.buttons)).toEqual(['Allow', 'Deny']);
    const answers = await race(PARALLEL, (i) => browsers[i]!.press(confirms[i]!, 'Allow'));
    const onward = answers.map((page, i) => [page, i] as const).filter(([page]) => page.url.pathname.startsWith('/oauth/interaction/'));
    expect(onward.length, JSON.stringify(answers.map((p) => [p.status, p.url.pathname]))).toBe(1);
    for (const page of answers.filter((p) => !p.url.pathname.startsWith('/oauth/interaction/'))) {
      expect(page.status).toBe(400);
      expect(text(page)).toContain('This code was already used');
    }
    // The one that went on signs in: the device gets that person's tokens.
    const [signIn, winner] = onward[0]!;
    const done = await browsers[winner]!.press(signIn, 'Sign in', { email: owner.email, password: owner.password });
    expect(text(done)).toContain('Device signed in');
    const tokens = await poll(a, started.device_code, await newDpopKey());
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(decodeJwt(tokens.body.access_token!).sub).toBe(owner.id);
  });
});

describe('the token endpoint budgets and a polling device', () => {
  // Three failures a minute for one client from one source: a device polling for a minute would spend it.
  const server = useTestServer({ overrides: { trustedProxies: ['127.0.0.1'], tokenFailuresPerClientAndSourcePerMinute: 3 } });

  it('pending polls are not failures; slow_down answers are, up to the budget, then 429', async () => {
    server.clock.startOfNextWindow();
    const started = await deviceCode(server, newSource());
    const key = await newDpopKey();
    const at = newSource();
    const pollFrom = async () => await tokenPost(server, { grant_type: DEVICE_GRANT, device_code: started.device_code, client_id: CLI }, { dpop: await dpopProof(key, { htm: 'POST', htu: `${server.issuer}/token` }), 'x-forwarded-for': at });
    // Ten polls at the interval (45 seconds of one minute): all pending, none refused.
    for (let i = 0; i < 10; i++) {
      expect((await pollFrom()).body.error).toBe('authorization_pending');
      server.clock.advance(5_000);
    }
    // Too soon, three times: slow_down, counted; the fourth failure is over the budget.
    expect((await pollFrom()).body.error).toBe('authorization_pending');
    const tooSoon = [await pollFrom(), await pollFrom(), await pollFrom()];
    expect(tooSoon.map((r) => r.body.error)).toEqual(['slow_down', 'slow_down', 'slow_down']);
    const refused = await pollFrom();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
