import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, csrfOf, SCREENSHOT_DIR, sessionCookie, signIn, v1 } from './support.ts';

/*
 * Release day in a real browser (docs/product.md §9): a person approves a waiting deployment from the
 * project's pending reviews and the service queues it by itself; an environment is locked (a deployment
 * is then refused) and unlocked from its page. Each page: axe-core clean in light and dark, and
 * screenshots at 1280 and 390 px in both themes (test-artifacts/screenshots).
 */
const env = useBrowserServer();
let server: TestServer;
let page: Page;
let bearer: string;
let projectId: string;

beforeAll(async () => {
  ({ server } = env);
  const owner = await makeUser(server, { role: 'owner', name: 'Rita Releaser' });
  let context;
  ({ context, page } = await signIn(env.browser, server, owner));
  const auth = { cookie: await sessionCookie(context), csrf: await csrfOf(page) };
  projectId = (await v1(server, '/v1/projects', auth, { method: 'POST', body: { name: 'Release flows' } })).body!.id;
  const key = await v1(server, `/v1/projects/${projectId}/api_keys`, auth, { method: 'POST', body: { name: 'CI deployer', scopes: ['write'] } });
  bearer = key.body!.key;
  const created = await v1(server, `/v1/projects/${projectId}/environments`, auth, { method: 'POST', body: { name: 'production', protection: { required_approvals: 1 } } });
  expect(created.status).toBe(201);
});

/** axe in light and dark, then full-page screenshots at 1280 and 390 px in each theme; nothing scrolls sideways at 390. */
async function checked(name: string): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}-${colorScheme}.png`), fullPage: true });
      const sideways = await page.evaluate<{ by: number; wide: string[] }>(`(() => {
        const width = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5).map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.'));
        return { by: document.documentElement.scrollWidth - width, wide: wide.slice(-6) };
      })()`);
      expect(sideways.by, `${name} at ${width} px (${colorScheme}) scrolls sideways: ${sideways.wide.join(', ')}`).toBeLessThanOrEqual(0);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

const deployment = async (id: string) => (await v1(server, `/v1/projects/${projectId}/deployments/${id}`, { bearer })).body!;

describe('release day in the browser', () => {
  it('Approve on the pending reviews: the waiting deployment is queued by the service', async () => {
    const created = await v1(server, `/v1/projects/${projectId}/deployments`, { bearer }, { method: 'POST', body: { environment: 'production', branch: 'main', commit_sha: 'a1b2c3d' } });
    expect(created.body!.status).toBe('waiting');
    await page.goto(`${server.url}/dashboard/projects/${projectId}/environments`);
    const pending = page.locator('#pending-reviews');
    expect(await pending.innerText()).toContain('a1b2c3d');
    await checked('release-pending-review');
    await Promise.all([page.waitForLoadState('load'), pending.getByRole('button', { name: 'Approve' }).click()]);
    await waitFor('the approved deployment to be queued', async () => (await deployment(created.body!.id)).status === 'queued');
    const reviews = await v1(server, `/v1/projects/${projectId}/deployments/${created.body!.id}/reviews`, { bearer });
    expect(reviews.body!.data).toEqual([expect.objectContaining({ decision: 'approve' })]);
  });

  it('Lock with a reason refuses new deployments; Unlock opens the environment again', async () => {
    await page.goto(`${server.url}/dashboard/projects/${projectId}/environments/production`);
    await page.getByLabel('Reason').fill('incident 42');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Lock' }).click()]);
    expect(await page.locator('main').innerText()).toContain('incident 42');
    await checked('release-environment-locked');
    const refused = await v1(server, `/v1/projects/${projectId}/deployments`, { bearer }, { method: 'POST', body: { environment: 'production', branch: 'main' } });
    expect(refused.status).toBe(409);
    expect(refused.body!.error.code).toBe('environment_locked');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Unlock' }).click()]);
    expect((await v1(server, `/v1/projects/${projectId}/environments/production`, { bearer })).body!.lock).toBeNull();
  });
});
