import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/services/passwords.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { setupLinkUrl } from '../../src/presenters/users.ts';
import { makeUser, TEST_PASSWORD } from '../support/factories.ts';
import { openLinkPage } from '../support/linkPages.ts';
import { launchBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';
import { screenshots, signIn, VIEWPORTS } from './support.ts';

let server: TestServer;
let browser: Browser;
let admin: TestUser;
/** Every setup token and password these tests saw; none may reach the log or the database in plaintext. */
const secrets: string[] = [];

const INVALID = 'This setup link is invalid or has expired. Ask an administrator for a new one.';
const SETUP_URL = /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/setup\?token=(slwsu_[A-Za-z0-9_-]{43})$/;
const INVITATION_URL = /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/invitation\?token=(slwin_[A-Za-z0-9_-]{43})$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const tokens = new Tokens(server);
  admin = await tokens.user('admin');
  secrets.push(admin.password);
});
afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

/** A member of the admin's account and a setup link for them (a password reset, as Settings > Users issues). */
async function addUserWithLink(name: string) {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`;
  const member = await makeUser(server, { email, name, role: 'developer', account_id: admin.accountId });
  const { token } = await server.services.users.issueSetupToken(systemPrincipal(admin.accountId), member._id);
  const url = setupLinkUrl(server.url, token);
  expect(SETUP_URL.exec(url)?.[1], url).toBe(token);
  secrets.push(token);
  return { id: member._id, email, url, token };
}

/** The person's password hash (the member's identity). */
async function personHash(userId: string): Promise<string> {
  const member = (await server.repos.users.findById(userId))!;
  return (await server.repos.identities.findById(member.identity_id!))!.password_hash!;
}

/** Whether the person still has the password they were made with. */
const stillFirstPassword = async (userId: string) => await verifyPassword(await personHash(userId), TEST_PASSWORD);

async function postSetup(fields: Record<string, string>, cookie = '') {
  const response = await fetch(`${server.url}/dashboard/setup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

async function submit(page: Page) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${server.url}/dashboard/setup`),
    page.getByRole('button', { name: 'Set password' }).click(),
  ]);
  await page.waitForLoadState('load');
  return response;
}

describe('a setup link', () => {
  it('lets the new user choose a password (a mismatch is shown at the field), then sign in and see the dashboard', async () => {
    const invited = await addUserWithLink('Nina New');
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();

    const opened = await page.goto(invited.url);
    expect(opened!.status()).toBe(200);
    expect(opened!.headers()['cache-control']).toBe('no-store');
    expect(opened!.headers()['referrer-policy']).toBe('no-referrer');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Set your password');
    expect(await page.locator('main').innerText()).toContain(invited.email);
    // The token travels in a hidden field, never in the URL the form posts to.
    const form = page.locator('form[method="post"]').filter({ has: page.getByRole('button', { name: 'Set password' }) });
    expect(await form.getAttribute('action')).toBe('/dashboard/setup');
    expect(await form.locator('input[name="token"]').inputValue()).toBe(invited.token);
    const password = page.getByLabel('New password', { exact: true });
    const confirm = page.getByLabel('Confirm new password');
    for (const field of [password, confirm]) {
      expect(await field.getAttribute('type')).toBe('password');
      expect(await field.getAttribute('autocomplete')).toBe('new-password');
      expect(await field.getAttribute('minlength')).toBe('12');
    }
    await screenshots(page, 'setup-form');

    // Two different passwords: the error sits at the confirmation field, tied to it; nothing is consumed.
    await password.fill('a fine long passphrase');
    await confirm.fill('a different passphrase');
    const mismatch = await submit(page);
    expect(mismatch.status()).toBe(422);
    expect(mismatch.headers()['cache-control']).toBe('no-store');
    const confirmAgain = page.getByLabel('Confirm new password');
    expect(await confirmAgain.getAttribute('aria-invalid')).toBe('true');
    expect((await confirmAgain.getAttribute('aria-describedby'))!.split(' ')).toContain('setup-confirm_password-error');
    expect(await page.locator('#setup-confirm_password-error').innerText()).toMatch(/does not match/i);
    expect(await page.getByRole('alert').innerText()).toContain('Confirm new password');
    expect(await form.locator('input[name="token"]').inputValue()).toBe(invited.token);
    expect(await page.getByLabel('New password', { exact: true }).inputValue()).toBe('');
    await screenshots(page, 'setup-form-error');

    // Too short: the error is at the password field.
    await page.getByLabel('New password', { exact: true }).fill('too short');
    await page.getByLabel('Confirm new password').fill('too short');
    expect((await submit(page)).status()).toBe(422);
    expect(await page.locator('#setup-password-error').innerText()).toContain('at least 12 characters');
    expect((await page.getByLabel('New password', { exact: true }).getAttribute('aria-describedby'))!.split(' ')).toEqual([
      'setup-password-hint',
      'setup-password-error',
    ]);
    expect(await stillFirstPassword(invited.id)).toBe(true);

    const chosen = 'nina chooses a long passphrase';
    secrets.push(chosen);
    await page.getByLabel('New password', { exact: true }).fill(chosen);
    await page.getByLabel('Confirm new password').fill(chosen);
    const done = await submit(page);
    expect(done.status()).toBe(303);
    expect(done.headers().location).toBe('/dashboard/login');

    // The sign-in page says so, with the email filled in.
    await page.waitForURL(new RegExp(`^${server.url}/oauth/interaction/`));
    expect(await page.getByRole('status').innerText()).toBe('Your password is set — sign in.');
    expect(await page.getByLabel('Email').inputValue()).toBe(invited.email);
    await screenshots(page, 'setup-sign-in');
    await page.getByLabel('Password').fill(chosen);
    await Promise.all([page.waitForURL(`${server.url}/dashboard/projects`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Projects');
    expect(await page.locator('.who').innerText()).toContain(invited.email);

    expect(await verifyPassword(await personHash(invited.id), chosen)).toBe(true);
    expect(await server.repos.userSetupTokens.collection.countDocuments({ user_id: invited.id })).toBe(0);
    expect(await server.repos.events.collection.countDocuments({ type: 'user.password_set', 'data.user_id': invited.id })).toBe(1);

    // The same link again: the friendly page, no form, no details.
    const again = await page.goto(invited.url);
    expect(again!.status()).toBe(400);
    expect(again!.headers()['cache-control']).toBe('no-store');
    expect(await page.locator('.problem').innerText()).toBe(INVALID);
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    await screenshots(page, 'setup-invalid');
    // Nor can the form be posted again: the used token is refused before anything else, the password stays.
    const replay = await postSetup({ token: invited.token, _csrf: 'x'.repeat(32), password: 'someone else entirely', confirm_password: 'someone else entirely' });
    expect(replay.status).toBe(400);
    expect(replay.text).toContain(INVALID);
    expect(await verifyPassword(await personHash(invited.id), chosen)).toBe(true);
    await context.close();
  });

  it('an expired link (expires_at in the past) shows the invalid page and sets nothing', async () => {
    const invited = await addUserWithLink('Eddie Expired');
    const before = await openLinkPage(invited.url);
    expect(before.status).toBe(200);
    const moved = await server.repos.userSetupTokens.collection.updateOne({ _id: sha256(invited.token) }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(moved.modifiedCount).toBe(1);

    const page = await browser.newPage();
    const response = await page.goto(invited.url);
    expect(response!.status()).toBe(400);
    expect(await page.locator('.problem').innerText()).toBe(INVALID);
    expect(await page.locator('form input[name="token"]').count()).toBe(0);
    await page.close();

    // The form, opened before it expired, is refused too.
    const late = await postSetup({ token: invited.token, _csrf: before.csrf, password: 'a late passphrase here', confirm_password: 'a late passphrase here' }, before.cookie);
    expect(late.status).toBe(400);
    expect(late.text).toContain(INVALID);
    expect(await stillFirstPassword(invited.id)).toBe(true);
  });

  it('malformed and unknown tokens get the same page, without details', async () => {
    const pages = await Promise.all(
      ['', '?token=', '?token=nope', `?token=slwsu_${'A'.repeat(43)}`, `?token=slwsu_${'A'.repeat(300)}`, '?token[$ne]=x', '?token=a&token=b'].map(async (query) => {
        const response = await fetch(`${server.url}/dashboard/setup${query}`);
        return { query, status: response.status, main: /<main[^>]*>([\s\S]*)<\/main>/.exec(await response.text())?.[1] };
      }),
    );
    for (const p of pages) {
      expect(p.status, p.query).toBe(400);
      expect(p.main, p.query).toBe(pages[0]!.main);
    }
    expect(pages[0]!.main).toContain(INVALID);
  });

  it('a post needs the signed cookie its form came with (double submit); a refused one consumes nothing', async () => {
    const invited = await addUserWithLink('Cora Crossite');
    const fields = { token: invited.token, password: 'a forged passphrase', confirm_password: 'a forged passphrase' };
    const opened = await openLinkPage(invited.url);
    expect(opened.cookie).toMatch(/slipway_setup_csrf=[^;]+; slipway_setup_csrf\.sig=/);
    expect(opened.csrf).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const noCookie = await postSetup({ ...fields, _csrf: opened.csrf });
    expect(noCookie.status).toBe(403);
    expect(noCookie.text).toContain('could not be verified');
    // Still the form, with the token, ready to try again.
    expect(noCookie.text).toContain(`name="token" value="${invited.token}"`);
    const wrongField = await postSetup({ ...fields, _csrf: 'B'.repeat(32) }, opened.cookie);
    expect(wrongField.status).toBe(403);
    const unsigned = await postSetup({ ...fields, _csrf: opened.csrf }, opened.cookie.replace(/; slipway_setup_csrf\.sig=[^;]+/, ''));
    expect(unsigned.status).toBe(403);
    expect(await stillFirstPassword(invited.id)).toBe(true);

    // With both, it goes through.
    const ok = await postSetup({ ...fields, _csrf: opened.csrf }, opened.cookie);
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/dashboard/login');
  });

  it('concurrent posts of one link set the password exactly once', async () => {
    const invited = await addUserWithLink('Rita Race');
    const opened = await openLinkPage(invited.url);
    const passwords = Array.from({ length: 6 }, (_, i) => `racing passphrase number ${i}`);
    const results = await Promise.all(
      passwords.map((p) => postSetup({ token: invited.token, _csrf: opened.csrf, password: p, confirm_password: p }, opened.cookie)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([303, 400, 400, 400, 400, 400]);
    const winner = passwords[results.findIndex((r) => r.status === 303)]!;
    const hash = await personHash(invited.id);
    for (const p of passwords) expect(await verifyPassword(hash, p), p).toBe(p === winner);
    expect(await server.repos.events.collection.countDocuments({ type: 'user.password_set', 'data.user_id': invited.id })).toBe(1);
  });
});

describe('Settings > Users > Add user: an invitation', () => {
  it('shows the invitation link once (no-store, copy button); a reload shows nothing and adds nobody; the link opens', async () => {
    const { context, page } = await signIn(browser, server, admin);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(`${server.url}/dashboard/settings/users`);
    await page.getByLabel('Email').fill('lena.link@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Lena Link');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    expect(await page.getByLabel('Initial password').isVisible()).toBe(true);
    await page.getByLabel('Send them a setup link').check();
    // No password to type when they choose their own.
    expect(await page.getByLabel('Initial password').isVisible()).toBe(false);
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${server.url}/dashboard/settings/users`),
      page.getByRole('button', { name: 'Add user' }).click(),
    ]);
    await page.waitForLoadState('load');
    expect(created.status()).toBe(200);
    expect(created.headers()['cache-control']).toBe('no-store');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('User invited');
    expect(await page.getByText("you won't see it again").isVisible()).toBe(true);
    const link = await page.getByLabel('Invitation link for lena.link@example.com').inputValue();
    const token = INVITATION_URL.exec(link)?.[1];
    expect(token, link).toBeDefined();
    secrets.push(token!);
    const copy = page.getByRole('button', { name: 'Copy' });
    expect(await copy.isVisible()).toBe(true);
    await copy.click();
    await expect.poll(() => page.locator('.copy-status').innerText()).toBe('Copied to the clipboard.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(link);
    await screenshots(page, 'users-invitation-link');
    const user = (await server.repos.users.collection.findOne({ account_id: admin.accountId, email: 'lena.link@example.com' }))!;
    expect(user).toMatchObject({ role: 'viewer', status: 'invited', identity_id: null });

    // Reloading posts the form again: no link, nobody new.
    await page.reload();
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${server.url}/dashboard/settings/users`);
    expect(await page.getByRole('alert').innerText()).toContain('already submitted');
    expect(await page.content()).not.toContain(token!);
    expect(await server.repos.users.collection.countDocuments({ email: 'lena.link@example.com' })).toBe(1);
    expect(await page.locator('table.list').innerText()).toContain('lena.link@example.com');
    await context.close();

    // The link opens the invitation page for her.
    const other = await browser.newPage();
    expect((await other.goto(link))!.status()).toBe(200);
    expect(await other.locator('main').innerText()).toContain('lena.link@example.com');
    await screenshots(other, 'invitation');
    await other.close();
  });

  it('with an initial password: that choice needs one; the answer is an invitation all the same', async () => {
    const { context, page } = await signIn(browser, server, admin, '/dashboard/settings/users');
    await page.getByLabel('Email').fill('pia.password@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Pia Password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#user-password-error').innerText()).toMatch(/initial password/i);
    expect(await page.getByLabel('Set their password now').isChecked()).toBe(true);
    await page.getByLabel('Initial password').fill('pia has a long password');
    secrets.push('pia has a long password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('User invited');
    secrets.push(INVITATION_URL.exec(await page.getByLabel('Invitation link for pia.password@example.com').inputValue())![1]!);
    const pia = (await server.repos.users.collection.findOne({ account_id: admin.accountId, email: 'pia.password@example.com' }))!;
    expect(pia.status).toBe('invited');
    await context.close();
  });
});

describe('setup tokens at rest and in the log', () => {
  it('are stored only as SHA-256, in no collection in plaintext', async () => {
    const pending = await addUserWithLink('Sam Stored');
    const doc = await server.repos.userSetupTokens.collection.findOne({ user_id: pending.id });
    expect(doc!._id).toBe(sha256(pending.token));
    const db = server.running.container.database.db;
    let scanned = 0;
    for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      const dump = JSON.stringify(await db.collection(name).find({}).toArray());
      scanned++;
      for (const secret of secrets) expect(dump, `${name} holds a secret`).not.toContain(secret);
      expect(dump, name).not.toContain('slwsu_');
    }
    expect(scanned).toBeGreaterThan(5);
  });

  it('never appear in the server log, nor do the passwords', () => {
    const log = server.logs.join('\n');
    expect(log).toContain('password set with a setup link');
    expect(log).toContain('"path":"/dashboard/setup"');
    expect(log).not.toContain('slwsu_');
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
