import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, csrfOf, narrowLayout, sessionCookie, signIn, v1 } from './support.ts';

/*
 * The dashboard as a release view: what is live in each environment (by whom, by name; when; how long it
 * took; its URL), the last deployment on the projects list, confirmations of what a redeploy or a
 * rollback changes, the chart's labels readable at 390 px, and the project page following its
 * deployments live (and working without JavaScript). Real server, real Chromium.
 */
const env = useBrowserServer({ overrides: { logPollIntervalMs: 100 } });
let server: TestServer;
let context: BrowserContext;
let page: Page;
let auth: { cookie: string; csrf: string };
let bearer: string;
let keyId: string;
let userId: string;
let accountId: string;
let projectId: string;
const base = () => `${server.url}/dashboard/projects/${projectId}`;

const SHA = { one: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', two: 'b2c3d4e5f60718293a4b5c6d7e8f901234567890', three: 'c3d4e5f60718293a4b5c6d7e8f90123456789012' };

/** A deployment made with the API key, moved through to `succeeded` (with a URL). */
async function shipped(environment: string, commit: string, url: string | null = null): Promise<string> {
  const created = await v1(server, `/v1/projects/${projectId}/deployments`, { bearer }, { method: 'POST', body: { environment, branch: 'main', commit_sha: commit } });
  expect(created.status).toBe(201);
  const id = created.body!.id as string;
  for (const status of ['building', 'deploying', 'succeeded']) {
    const moved = await v1(server, `/v1/projects/${projectId}/deployments/${id}`, { bearer }, { method: 'PATCH', body: { status, ...(status === 'succeeded' && url ? { url } : {}) } });
    expect(moved.status).toBe(200);
  }
  return id;
}

beforeAll(async () => {
  ({ server } = env);
  const owner = await makeUser(server, { role: 'owner', name: 'Olivia Owner' });
  userId = owner._id;
  accountId = owner.account_id;
  ({ context, page } = await signIn(env.browser, server, owner));
  auth = { cookie: await sessionCookie(context), csrf: await csrfOf(page) };
  const project = await v1(server, '/v1/projects', auth, { method: 'POST', body: { name: 'Release view' } });
  projectId = project.body!.id;
  const key = await v1(server, `/v1/projects/${projectId}/api_keys`, auth, { method: 'POST', body: { name: 'CI deployer', scopes: ['write'] } });
  expect(key.status).toBe(201);
  bearer = key.body!.key;
  keyId = key.body!.id;
  await shipped('production', SHA.one);
  await shipped('production', SHA.two, 'https://release-view.example.com');
  // Staging: made by the signed-in user.
  const staging = await v1(server, `/v1/projects/${projectId}/deployments`, auth, { method: 'POST', body: { environment: 'staging', branch: 'feature/x', commit_sha: SHA.three } });
  for (const status of ['building', 'deploying', 'succeeded']) await v1(server, `/v1/projects/${projectId}/deployments/${staging.body!.id}`, auth, { method: 'PATCH', body: { status } });
});

describe('the release view', () => {
  it('the project page and its Environments tab show what is live in each environment, by name, with age, duration and URL', async () => {
    for (const path of ['', '/environments']) {
      await page.goto(`${base()}${path}`);
      const live = path ? page.locator('#environments tbody tr') : page.locator('#live .live-env');
      expect(await live.count()).toBe(2);
      const production = path ? live.filter({ hasText: 'production' }) : page.locator('#live .live-env[data-environment="production"]');
      const text = (await production.textContent()) ?? '';
      expect(text).toContain(SHA.two.slice(0, 7));
      expect(text).toContain('CI deployer');
      expect(text).not.toContain(keyId);
      expect(await production.locator('a[href="https://release-view.example.com"]').count()).toBe(1);
      // Relative age, the full time in the <time>'s title and datetime.
      const time = production.locator('time').first();
      expect(await time.textContent()).toMatch(/just now|min ago/);
      expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(await production.locator('[data-seconds]').count()).toBe(1);
      const staging = path ? live.filter({ hasText: 'staging' }) : page.locator('#live .live-env[data-environment="staging"]');
      expect(await staging.textContent()).toContain('Olivia Owner');
      expect(await staging.textContent()).not.toContain(userId);
      expect(await axeViolations(page)).toEqual([]);
      await narrowLayout(page, `release${path.replace('/', '-') || '-project'}`);
    }
  });

  it('deployment lists show who, relative age and duration; the projects list shows each project\'s last deployment', async () => {
    await page.goto(base());
    const rows = page.locator('#deployments tbody tr');
    expect(await rows.count()).toBe(3);
    const first = rows.first();
    expect(await first.locator('td[data-label="By"]').textContent()).toBe('Olivia Owner');
    expect(await first.locator('td[data-label="Created"] time').textContent()).toMatch(/just now|min ago/);
    expect(await first.locator('td[data-label="Took"] [data-seconds]').count()).toBe(1);
    expect(await rows.nth(1).locator('td[data-label="By"]').textContent()).toContain('CI deployer');

    await page.goto(`${server.url}/dashboard/projects`);
    const last = page.locator('td[data-last-deployment]');
    expect(await last.count()).toBe(1);
    const text = (await last.textContent()) ?? '';
    expect(text).toContain('staging');
    expect(text).toContain(SHA.three.slice(0, 7));
    expect(text).toContain('Olivia Owner');
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'release-projects');
  });

  it('the chart\'s axis labels are at least 11 px tall at 390 px, and the visible ones do not overlap', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(base());
    const labels = await page.evaluate<{ text: string; height: number; left: number; right: number; x: boolean }[]>(`[...document.querySelectorAll('#deployments-per-day .chart-axis')]
      .filter((el) => getComputedStyle(el).visibility !== 'hidden')
      .map((el) => { const r = el.getBoundingClientRect(); return { text: el.textContent, height: r.height, left: r.left, right: r.right, x: !!el.closest('.chart-x') }; })`);
    const days = labels.filter((l) => l.x);
    expect(days.length).toBeGreaterThanOrEqual(3);
    expect(labels.filter((l) => !l.x).length).toBeGreaterThanOrEqual(2);
    for (const l of labels) expect(l.height, `label ${l.text}`).toBeGreaterThanOrEqual(11);
    for (let i = 1; i < days.length; i++) expect(days[i]!.left).toBeGreaterThan(days[i - 1]!.right);
    // Inside the page: nothing sticks out to the right.
    expect(Math.max(...days.map((d) => d.right))).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('Redeploy and Roll back ask first, showing the commit live now and the one they put live', async () => {
    const old = (await v1(server, `/v1/projects/${projectId}/deployments?environment=production`, auth)).body!.data.find((d: { commit_sha: string }) => d.commit_sha === SHA.one);
    await page.goto(`${base()}/deployments/${old.id}`);
    await page.getByRole('link', { name: 'Redeploy…' }).click();
    expect(page.url()).toBe(`${base()}/deployments/${old.id}/redeploy`);
    const question = (await page.locator('.confirm').textContent()) ?? '';
    expect(question).toMatch(new RegExp(`from commit ${SHA.two.slice(0, 7)} to commit ${SHA.one.slice(0, 7)}`));
    expect(question).toContain('CI deployer');
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'release-redeploy-confirm');
    await page.getByRole('button', { name: 'Redeploy' }).click();
    const redeployId = /\/deployments\/(dep_[0-9a-z]+)$/.exec(page.url())?.[1];
    const redeployed = await v1(server, `/v1/projects/${projectId}/deployments/${redeployId}`, auth);
    expect(redeployed.body).toMatchObject({ kind: 'redeploy', commit_sha: SHA.one, environment: 'production' });
    await v1(server, `/v1/projects/${projectId}/deployments/${redeployId}`, auth, { method: 'PATCH', body: { status: 'canceled' } });

    // Roll back production: from what is live (two) to the deployment that succeeded before it (one).
    await page.goto(`${base()}/environments/production`);
    await page.getByRole('link', { name: 'Roll back…' }).click();
    const rollback = (await page.locator('.confirm').textContent()) ?? '';
    expect(rollback).toMatch(new RegExp(`from commit ${SHA.two.slice(0, 7)} to commit ${SHA.one.slice(0, 7)}`));
    expect(await page.locator('.confirm input[name="deployment_id"]').inputValue()).toBe(old.id);
    await page.getByRole('button', { name: 'Roll back' }).click();
    const rollbackId = /\/deployments\/(dep_[0-9a-z]+)$/.exec(page.url())?.[1];
    expect((await v1(server, `/v1/projects/${projectId}/deployments/${rollbackId}`, auth)).body).toMatchObject({ kind: 'rollback', source_deployment_id: old.id, commit_sha: SHA.one });
    await v1(server, `/v1/projects/${projectId}/deployments/${rollbackId}`, auth, { method: 'PATCH', body: { status: 'canceled' } });
  });

  it('a viewer sees what is live, by name, without Redeploy or Roll back; their confirmation pages and forms answer 403', async () => {
    const viewer = await makeUser(server, { role: 'viewer', account_id: accountId, name: 'Vera Viewer' });
    const { token, session } = await server.running.container.sessions.create(viewer._id, accountId);
    const cookie = `slipway_session=${token}`;
    const get = async (path: string) => {
      const res = await fetch(`${base()}${path}`, { redirect: 'manual', headers: { cookie } });
      return { status: res.status, text: await res.text() };
    };
    const project = await get('');
    expect(project.status).toBe(200);
    expect(project.text).toContain('CI deployer');
    expect(project.text).not.toContain('/redeploy"');
    expect(project.text).not.toContain('/rollback"');
    const old = (await v1(server, `/v1/projects/${projectId}/deployments?environment=production`, auth)).body!.data.at(-1);
    expect((await get(`/deployments/${old.id}/redeploy`)).status).toBe(403);
    expect((await get('/environments/production/rollback')).status).toBe(403);
    for (const path of [`/deployments/${old.id}/redeploy`, '/environments/production/rollback']) {
      const posted = await fetch(`${base()}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ _csrf: session.csrf_token }) });
      expect(posted.status).toBe(403);
    }
  });

  it('with JavaScript the project page follows its deployments live; without it the page is complete as loaded', async () => {
    await page.goto(base());
    const created = await v1(server, `/v1/projects/${projectId}/deployments`, { bearer }, { method: 'POST', body: { environment: 'preview', branch: 'live-update', commit_sha: 'd4e5f60718' } });
    expect(created.status).toBe(201);
    const row = page.locator(`#deployments tr[data-deployment="${created.body!.id}"]`);
    await row.waitFor({ timeout: 5000 });
    expect(await row.locator('.badge').textContent()).toBe('queued');
    for (const status of ['building', 'deploying', 'succeeded']) {
      expect((await v1(server, `/v1/projects/${projectId}/deployments/${created.body!.id}`, { bearer }, { method: 'PATCH', body: { status } })).status).toBe(200);
    }
    await row.locator('.badge-succeeded').waitFor({ timeout: 5000 });
    await page.locator('#live .live-env[data-environment="preview"]').waitFor({ timeout: 5000 });
    await page.getByText('Deployment to preview is now succeeded.').waitFor({ timeout: 5000 });
    expect(await axeViolations(page)).toEqual([]);

    const noScript = await env.browser.newContext({ javaScriptEnabled: false });
    await noScript.addCookies(await context.cookies());
    const plain = await noScript.newPage();
    await plain.goto(base());
    expect(await plain.locator(`#deployments tr[data-deployment="${created.body!.id}"] .badge`).textContent()).toBe('succeeded');
    expect(await plain.locator('#live .live-env').count()).toBe(3);
    await noScript.close();
  });
});
