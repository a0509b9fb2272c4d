import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation, makeClient } from '../support/factories.ts';
import { useApiServer } from '../support/fixtures.ts';
import { CookieJar, driveAuthorization, obtainTokens, tokenRequest } from '../support/oauthDriver.ts';
import type { TestUser } from '../support/tokens.ts';

/*
 * docs/product.md §11: a person with accounts A and B signs in to a third-party app: the chooser (one
 * submit button per account, name="account") comes between the password and the consent; the access
 * token's `acct`, the ID token and every refresh keep the chosen account; `account_hint=acct_…` skips
 * the chooser.
 */
const env = useApiServer();
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
let person: TestUser;
let inA: string;
let clientId: string;

beforeAll(async () => {
  person = await env.tokens.user('developer');
  const invited = await env.api.post('/v1/users', { token: env.adminToken, body: { email: person.email, name: 'Two Accounts', role: 'viewer' } });
  expect(invited.status).toBe(201);
  inA = (await acceptInvitation(env.server, invited.body, person.password))._id;
  // A third-party app (consent shown), registered by A.
  clientId = (await makeClient(env.server, { account_id: env.owner.accountId, redirect_uris: [REDIRECT_URI] })).client._id;
});

/** Signs in over HTTP with a fresh browser; the pages seen on the way (their titles) and the tokens. */
async function signIn(options: { account?: string; hint?: string }) {
  const pages: string[] = [];
  const tokens = await obtainTokens(
    {
      issuer: env.server.issuer,
      clientId,
      redirectUri: REDIRECT_URI,
      scope: 'openid read',
      email: person.email,
      password: person.password,
      ...(options.account ? { account: options.account } : {}),
      ...(options.hint ? { extraParams: { account_hint: options.hint } } : {}),
      onPage: (html) => pages.push(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '?'),
    },
    new CookieJar(),
  );
  return { pages, tokens: tokens as typeof tokens & { id_token?: string } };
}

describe('the account chooser', () => {
  it('comes between the password and the consent; the chosen account is the token’s, the ID token’s and every refresh’s', async () => {
    let chooser = '';
    const seen: string[] = [];
    const tokens = await obtainTokens(
      { issuer: env.server.issuer, clientId, redirectUri: REDIRECT_URI, scope: 'openid read', email: person.email, password: person.password, account: env.owner.accountId, onPage: (html) => {
        seen.push(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '?');
        if (html.includes('name="account"')) chooser = html;
      } },
      new CookieJar(),
    );
    expect(seen).toEqual(['Sign in', 'Choose an account', expect.stringMatching(/^Authorize /)]);
    // One submit button per account.
    const buttons = [...chooser.matchAll(/<button type="submit" name="account" value="(acct_[a-z0-9]+)">/g)].map((m) => m[1]);
    expect(buttons.sort()).toEqual([env.owner.accountId, person.accountId].sort());

    expect(decodeJwt(tokens.access_token)).toMatchObject({ acct: env.owner.accountId, sub: inA });
    expect(decodeJwt((tokens as { id_token?: string }).id_token!)).toMatchObject({ sub: inA });
    const me = await env.api.get('/v1/users/me', { token: tokens.access_token });
    expect(me.body).toMatchObject({ id: inA, account_id: env.owner.accountId, role: 'viewer' });

    // Every refresh keeps A.
    let refreshToken = tokens.refresh_token!;
    for (let i = 0; i < 2; i++) {
      const refreshed = await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: refreshToken });
      expect(decodeJwt(refreshed.access_token)).toMatchObject({ acct: env.owner.accountId, sub: inA });
      refreshToken = refreshed.refresh_token ?? refreshToken;
    }
  });

  it('choosing B acts in B', async () => {
    const { pages, tokens } = await signIn({ account: person.accountId });
    expect(pages).toContain('Choose an account');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ acct: person.accountId, sub: person.id });
  });

  it('account_hint naming one of the person’s accounts skips the chooser', async () => {
    for (const [hint, sub] of [[env.owner.accountId, inA], [person.accountId, person.id]] as const) {
      const { pages, tokens } = await signIn({ hint });
      expect(pages).not.toContain('Choose an account');
      expect(decodeJwt(tokens.access_token)).toMatchObject({ acct: hint, sub });
    }
  });

  it('an account_hint of an account they are not in shows the chooser; a chosen account that is not theirs is refused', async () => {
    const stranger = await env.tokens.user('owner');
    const { pages } = await signIn({ hint: stranger.accountId, account: person.accountId });
    expect(pages).toContain('Choose an account');
    await expect(signIn({ account: stranger.accountId })).rejects.toThrow(/400/);
  });
});

describe('a tab left open in one account after switching to the other in another tab', () => {
  it('can no longer read or change anything of the account it was opened in, through its pages or /v1', async () => {
    const project = await env.api.post('/v1/projects', { token: await env.tokens.accessToken(person, 'write'), body: { name: 'B only' } });
    expect(project.status).toBe(201);
    const projectPage = `/dashboard/projects/${project.body.id}`;
    const jar = new CookieJar();
    await dashboardSignIn(jar, '/dashboard/login', person.accountId);
    // Tab 1: B's project page, with its new-deployment form.
    const page = await fetch(`${env.server.url}${projectPage}`, { headers: { cookie: jar.header(projectPage) } });
    expect(page.status).toBe(200);
    const staleCsrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;

    // Tab 2: the Account page switches to A (the same browser, so the same cookies).
    const account = await (await fetch(`${env.server.url}/dashboard/account`, { headers: { cookie: jar.header('/dashboard/account') } })).text();
    const switchCsrf = /name="_csrf" value="([^"]+)"><input type="hidden" name="switch_to" value="acct_/.exec(account)![1]!;
    const signedOut = await fetch(`${env.server.url}/dashboard/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header('/dashboard/logout'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: switchCsrf, switch_to: env.owner.accountId }),
    });
    jar.store(signedOut);
    const switched = await dashboardSignIn(jar, signedOut.headers.get('location')!);
    expect(switched.me.account_id).toBe(env.owner.accountId);

    // Tab 1 again: the page, its stale form, a form carrying the new session's token, and /v1 with the cookie.
    const reload = await fetch(`${env.server.url}${projectPage}`, { headers: { cookie: jar.header(projectPage) } });
    expect(reload.status).toBe(404);
    const freshCsrf = /name="_csrf" value="([^"]+)"/.exec(await (await fetch(`${env.server.url}/dashboard/projects`, { headers: { cookie: jar.header('/dashboard/projects') } })).text())![1]!;
    for (const csrf of [staleCsrf, freshCsrf]) {
      const submitted = await fetch(`${env.server.url}${projectPage}/deployments`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(`${projectPage}/deployments`), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, environment: 'production', branch: 'main' }),
      });
      expect([403, 404], csrf === staleCsrf ? 'stale form' : 'fresh token').toContain(submitted.status);
    }
    const v1 = await fetch(`${env.server.url}/v1/projects/${project.body.id}`, { headers: { cookie: jar.header('/v1/projects') } });
    expect(v1.status).toBe(404);
    expect(await env.server.repos.deployments.collection.countDocuments({ project_id: project.body.id })).toBe(0);
  });
});

/** The dashboard's sign-in over HTTP from `start` (/dashboard/login…), through the chooser when asked: the session's account, as /v1 sees it. */
async function dashboardSignIn(jar: CookieJar, start: string, account?: string) {
  const url = new URL(start, env.server.url);
  const begun = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url.pathname) } });
  jar.store(begun);
  const authorize = new URL(begun.headers.get('location')!, url);
  const pages: string[] = [];
  const options = { redirectUri: `${env.server.url}/dashboard/callback`, email: person.email, password: person.password, onPage: (html: string) => pages.push(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '?') };
  const { callback } = await driveAuthorization(authorize, { ...options, ...(account ? { account } : {}) }, jar);
  const done = await fetch(callback, { redirect: 'manual', headers: { cookie: jar.header(callback.pathname) } });
  jar.store(done);
  expect(done.status).toBe(302);
  const me = await fetch(`${env.server.url}/v1/users/me`, { headers: { cookie: jar.header('/v1/users/me') } });
  return { authorize, pages, me: (await me.json()) as { id: string; account_id: string } };
}

describe('the dashboard', () => {
  it('signs in to the chosen account; the Account page switches to the other one (signed out, then in with account_hint)', async () => {
    const jar = new CookieJar();
    const first = await dashboardSignIn(jar, '/dashboard/login', person.accountId);
    expect(first.pages).toEqual(['Sign in', 'Choose an account']);
    expect(first.me).toMatchObject({ id: person.id, account_id: person.accountId });

    const page = await (await fetch(`${env.server.url}/dashboard/account`, { headers: { cookie: jar.header('/dashboard/account') } })).text();
    expect(page).toContain('this session');
    const form = /<form method="post" action="\/dashboard\/logout" class="inline"><input type="hidden" name="_csrf" value="([^"]+)"><input type="hidden" name="switch_to" value="(acct_[a-z0-9]+)"><button[^>]*>Switch to /.exec(page);
    expect(form?.[2]).toBe(env.owner.accountId);
    const signedOut = await fetch(`${env.server.url}/dashboard/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header('/dashboard/logout'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: form![1]!, switch_to: form![2]! }),
    });
    jar.store(signedOut);
    expect(signedOut.status).toBe(303);
    const next = signedOut.headers.get('location')!;
    expect(next).toBe(`/dashboard/login?account=${env.owner.accountId}`);

    const switched = await dashboardSignIn(jar, next);
    expect(switched.authorize.searchParams.get('account_hint')).toBe(env.owner.accountId);
    expect(switched.pages).toEqual(['Sign in']);
    expect(switched.me).toMatchObject({ id: inA, account_id: env.owner.accountId });
  });
});
