import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/server.ts';
import { screenshots, signIn } from './support.ts';

/** Settings > Webhooks in a real browser, delivering to a real receiver on loopback. */

const env = useBrowserServer({ overrides: { webhookAllowLoopback: true, webhookPollIntervalMs: 50, webhookRetryBaseMs: 200, webhookTimeoutMs: 1000 } });
let server: TestServer, page: Page, r: Receiver;
let owner: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  server = env.server;
  owner = await makeUser(server, { role: 'owner' });
  r = await startReceiver();
  ({ page } = await signIn(env.browser, server, owner));
});
afterAll(async () => {
  await r?.close();
});

async function reloadUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  await waitFor(what, async () => {
    await page.reload();
    return await check();
  });
}

describe('Settings > Webhooks', () => {
  it('an admin adds an endpoint (the secret shown once), pings it, reads the log and redelivers, disables it', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`${server.url}/dashboard/settings/webhooks`);

    // A private address is refused on the form, as on /v1.
    await page.getByLabel('URL').fill('https://10.0.0.1/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#hook-url-error').innerText()).toMatch(/private/);

    await page.getByLabel('URL').fill(r.url);
    await page.getByLabel('Description').fill('Release bot');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Endpoint added');
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await screenshots(page, 'webhook-added');
    await page.getByRole('link', { name: 'Go to the endpoint' }).click();
    await page.waitForLoadState('load');
    expect(await page.content()).not.toContain(secret);
    const webhookUrl = page.url();

    await page.getByRole('button', { name: 'Send a ping event' }).click();
    await page.waitForURL(webhookUrl);
    await waitFor('the ping', async () => r.received.length >= 1, 10_000, 20);
    await reloadUntil('the log to show the delivery', async () => (await page.locator('table.list tbody tr').first().innerText()).includes('succeeded'));
    const row = await page.locator('table.list tbody tr').first().innerText();
    expect(row).toContain('webhook.ping');
    expect(row).toContain('200');
    await screenshots(page, 'webhook-deliveries');

    const deliveryId = r.received[0]!.headers['slipway-delivery'] as string;
    await page.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
    await page.waitForURL(webhookUrl);
    expect(await page.getByRole('status').first().innerText()).toContain('Delivery queued again');
    await waitFor('the redelivery', async () => r.received.length >= 2, 10_000, 20);
    expect(r.received[1]!.headers['slipway-delivery']).toBe(deliveryId);

    await page.getByRole('button', { name: 'Disable this endpoint' }).click();
    await page.waitForURL(webhookUrl);
    expect((await server.repos.webhooks.collection.findOne({ account_id: owner.account_id }))!.status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable this endpoint' }).click();
    await page.waitForURL(webhookUrl);
    expect((await server.repos.webhooks.collection.findOne({ account_id: owner.account_id }))!.status).toBe('enabled');
  });

  it('a viewer may not see the page', async () => {
    const viewer = await makeUser(server, { role: 'viewer', account_id: owner.account_id });
    const { page: theirs, context } = await signIn(env.browser, server, viewer);
    const response = await theirs.goto(`${server.url}/dashboard/settings/webhooks`);
    expect(response!.status()).toBe(403);
    await context.close();
  });
});
