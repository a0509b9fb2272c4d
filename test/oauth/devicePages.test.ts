import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, narrowLayout } from '../dashboard/support.ts';
import { requestDeviceCode } from '../support/deviceDriver.ts';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';

/*
 * The device sign-in pages (RFC 8628, docs/product.md §12) in a real browser: the code form as the
 * device's link opens it (filled in, not sent), the confirm page, the sign-in, the signed-in, denied,
 * wrong-code and expired pages; each one checked with axe-core's WCAG 2.x A/AA rules in light and dark,
 * and at 390 px without sideways scrolling.
 */
const env = useBrowserServer();
let server: TestServer;
let person: Awaited<ReturnType<typeof makeUser>>;
beforeAll(async () => {
  ({ server } = env);
  person = await makeUser(server, { role: 'owner' });
});

async function deviceLink(): Promise<{ link: string; userCode: string; deviceCode: string }> {
  const { status, body } = await requestDeviceCode(server.url, { client_id: 'slipway-cli', scope: 'read write' }, { 'user-agent': 'slipway-cli/0.1 (darwin)' });
  expect(status).toBe(200);
  return { link: body.verification_uri_complete, userCode: body.user_code, deviceCode: body.device_code };
}

/** axe in both themes and the 390 px layout: the problems found on `page`, named `name`. */
async function check(page: Page, name: string): Promise<string[]> {
  await narrowLayout(page, `device-${name}`);
  return (await axeViolations(page)).map((v) => `${name}: ${v}`);
}

describe('the device sign-in pages in a browser', () => {
  it('link → code filled in → confirm → sign in → signed in: each page accessible in both themes and at 390 px', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const { link, userCode } = await deviceLink();
    const problems: string[] = [];

    await page.goto(link);
    await expect.poll(() => page.getByLabel('Code').inputValue()).toBe(userCode);
    expect(page.url()).toBe(link);
    problems.push(...(await check(page, 'code')));

    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Sign in Slipway CLI?' }).waitFor();
    await expect.poll(() => page.locator('[data-fact="device-user-agent"]').textContent()).toBe('slipway-cli/0.1 (darwin)');
    expect(await page.locator('[data-fact="user-code"]').textContent()).toBe(userCode);
    problems.push(...(await check(page, 'confirm')));

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Device signed in' }).waitFor();
    problems.push(...(await check(page, 'signed-in')));

    // A browser already signed in: Allow goes straight to the signed-in page.
    const second = await deviceLink();
    await page.goto(second.link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Device signed in' }).waitFor();
    await context.close();
    expect(problems).toEqual([]);
  });

  it('the wrong-code, denied and expired pages', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];

    await page.goto(`${server.url}/oauth/device`);
    await page.getByLabel('Code').fill('bbbb-bbbb');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'That code is not right' }).waitFor();
    expect(await page.getByLabel('Code').getAttribute('aria-invalid')).toBe('true');
    problems.push(...(await check(page, 'wrong-code')));

    const denied = await deviceLink();
    await page.goto(denied.link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Access denied' }).waitFor();
    problems.push(...(await check(page, 'denied')));

    const expired = await deviceLink();
    server.clock.advance(601_000);
    await page.goto(expired.link);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'This code has expired' }).waitFor();
    problems.push(...(await check(page, 'expired')));
    await context.close();
    expect(problems).toEqual([]);
  });
});
