import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, narrowLayout, sessionCookie, signIn, v1 } from './support.ts';

/*
 * docs/product.md §11 in a real browser: the invitation page (a new address chooses a password; one that
 * signs in gives its own), the account chooser between the password and the dashboard, and the Account
 * page's switcher — each with 0 axe-core violations (WCAG 2.2 A/AA) in light and dark, and fitting 390 px
 * (screenshots in test-artifacts/screenshots).
 */
const env = useBrowserServer();
let server: TestServer;
let person: Awaited<ReturnType<typeof makeUser>>;
let adminCookie: string;
let adminCsrf: string;

beforeAll(async () => {
  ({ server } = env);
  const admin = await makeUser(server, { role: 'owner', name: 'Ada Admin' });
  person = await makeUser(server, { role: 'owner', name: 'Pat Person' });
  const { context, page } = await signIn(env.browser, server, admin);
  adminCookie = await sessionCookie(context);
  adminCsrf = await page.locator('form.signout input[name="_csrf"]').inputValue();
  await context.close();
});

async function invite(email: string): Promise<string> {
  const res = await v1(server, '/v1/users', { cookie: adminCookie, csrf: adminCsrf }, { method: 'POST', body: { email, name: 'Invited', role: 'developer' } });
  expect(res.status).toBe(201);
  return res.body!.invitation_url as string;
}

describe('the invitation page', () => {
  it('a new address chooses a password and accepts; the page passes axe and fits 390 px', async () => {
    const url = await invite(`new-${randomBytes(4).toString('hex')}@example.com`);
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'invitation-new-address');
    await page.getByLabel(/password/i).first().fill('a brand new long password');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Accept' }).click()]);
    expect(page.url()).not.toContain('/dashboard/invitation');
    await context.close();
  });

  it('an address that signs in elsewhere accepts with its own password; then the chooser and the switcher', async () => {
    const url = await invite(person.email);
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'invitation-known-address');
    await page.getByLabel(/password/i).first().fill(person.password);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Accept' }).click()]);

    // Signing in to the dashboard now asks which account.
    await page.goto(`${server.url}/dashboard/projects`);
    if (await page.getByLabel('Email').count()) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    }
    await expect.poll(() => page.locator('h1').innerText()).toBe('Choose an account');
    expect(await page.locator('button[name="account"]').count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'account-chooser');
    await Promise.all([page.waitForURL(`${server.url}/dashboard/projects`), page.locator(`button[name="account"][value="${person.account_id}"]`).click()]);

    // The Account page lists both; switching signs in to the other one.
    await page.goto(`${server.url}/dashboard/account`);
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'account-switcher');
    const switcher = page.getByRole('button', { name: /^Switch to / });
    expect(await switcher.count()).toBe(1);
    await switcher.click();
    await page.waitForLoadState('load');
    if (await page.getByLabel('Password').count()) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(person.password);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
    }
    await page.waitForURL(/\/dashboard\//);
    const me = await v1(server, '/v1/users/me', { cookie: await sessionCookie(context) });
    expect(me.body!.account_id).not.toBe(person.account_id);
    expect(me.body!.email).toBe(person.email);
    await context.close();
  });
});
