import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useBrowserServer, useCallbackServer } from '../support/fixtures.ts';
import { buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, csrfOf, narrowLayout, sessionCookie, signIn, v1 } from './support.ts';

/*
 * The dashboard's newer pages (events, a deployment's page, the project's tabs, the signed-out page),
 * its accessibility (axe-core, WCAG 2.2 A/AA rules, light and dark), its 390 px layout, and sign-out
 * ending the authorization server's session too.
 */

const env = useBrowserServer();
const callback = useCallbackServer();
let server: TestServer;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let context: BrowserContext;
let page: Page;
let projectId: string;
let deploymentId: string;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  ({ server } = env);
  owner = await makeUser(server, { role: 'owner', name: 'Olivia Owner' });
  viewer = await makeUser(server, { role: 'viewer', name: 'Victor Viewer', account_id: owner.account_id });
  ({ context, page } = await signIn(env.browser, server, owner));
  cookie = await sessionCookie(context);
  csrf = await csrfOf(page);
  // Data for every page, made through /v1 with the session (the same services the pages use).
  const auth = { cookie, csrf };
  const project = await v1(server, '/v1/projects', auth, { method: 'POST', body: { name: 'Checkout', deploy_target: 'fly' } });
  expect(project.status).toBe(201);
  projectId = project.body!.id;
  const deployment = await v1(server, `/v1/projects/${projectId}/deployments`, auth, { method: 'POST', body: { environment: 'production', branch: 'main', commit_sha: 'a1b2c3d4e5f6' } });
  expect(deployment.status).toBe(201);
  deploymentId = deployment.body!.id;
  for (const status of ['building', 'deploying', 'succeeded'])
    expect((await v1(server, `/v1/projects/${projectId}/deployments/${deploymentId}`, auth, { method: 'PATCH', body: { status } })).status).toBe(200);
  expect((await v1(server, `/v1/projects/${projectId}/deployments`, auth, { method: 'POST', body: { environment: 'staging', branch: 'feature/search' } })).status).toBe(201);
  const configAdded = await v1(server, `/v1/projects/${projectId}/configurations`, auth, { method: 'POST', body: { environment: 'production', key: 'API_TOKEN', value: 'not-shown', secret: true } });
  expect(configAdded.status).toBe(201);
  const trusted = { name: 'GitHub Actions', issuer: 'https://token.actions.githubusercontent.com', claims: { repository_id: '123456', ref: 'refs/heads/main' }, scopes: ['read', 'write'], environments: ['production'] };
  expect((await v1(server, `/v1/projects/${projectId}/trust_policies`, auth, { method: 'POST', body: trusted })).status).toBe(201);
  expect((await v1(server, `/v1/projects/${projectId}/api_keys`, auth, { method: 'POST', body: { name: 'CI deploy', scopes: ['write'] } })).status).toBe(201);
});

describe('events page', () => {
  it('lists the account’s audit log, newest first, as GET /v1/events does, with filters', async () => {
    await page.goto(`${server.url}/dashboard/projects`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL(`${server.url}/dashboard/events`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Events');
    const api = await v1(server, '/v1/events?per_page=100', { cookie });
    expect(api.status).toBe(200);
    const rows = page.locator('table.list tbody tr');
    expect(await rows.count()).toBe(api.body!.pagination.total);
    expect(await rows.first().innerText()).toContain(api.body!.data[0].type);
    expect(await rows.first().innerText()).toContain('api_key.created');

    await page.getByLabel('Type').selectOption('deployment.status_changed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForLoadState('load');
    expect(page.url()).toContain('type=deployment.status_changed');
    expect(await rows.count()).toBe(3);
    expect(await rows.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('succeeded')]));

    // A filter the /v1 schema refuses is refused here too, next to the field.
    const bad = await page.goto(`${server.url}/dashboard/events?type=nonsense`);
    expect(bad!.status()).toBe(422);
    expect(await page.locator('#events-type-error').isVisible()).toBe(true);
  });

  it('needs the admin role, like /v1/events', async () => {
    const { context: viewerContext, page: viewerPage } = await signIn(env.browser, server, viewer);
    const refused = await viewerPage.goto(`${server.url}/dashboard/events`);
    expect(refused!.status()).toBe(403);
    expect(await viewerPage.locator('table.list').count()).toBe(0);
    // Nor does the project page offer a viewer the Activity and API keys tabs, or answer them.
    await viewerPage.goto(`${server.url}/dashboard/projects/${projectId}`);
    const tabs = viewerPage.getByRole('navigation', { name: 'Project sections' });
    expect(await tabs.getByRole('link').allInnerTexts()).toEqual(['Deployments', 'Environments', 'Configuration']);
    expect((await viewerPage.goto(`${server.url}/dashboard/projects/${projectId}/activity`))!.status()).toBe(403);
    // The deployment's history is shown without who made each change.
    await viewerPage.goto(`${server.url}/dashboard/projects/${projectId}/deployments/${deploymentId}`);
    expect(await viewerPage.locator('ol.history').innerText()).not.toContain(owner._id);
    await viewerContext.close();
  });
});

describe('project page', () => {
  it('is organised in tabs that are plain links (no script needed), each its own URL', async () => {
    const noScript = await env.browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
    const p = await noScript.newPage();
    await p.goto(`${server.url}/dashboard/projects/${projectId}`);
    const tabs = p.getByRole('navigation', { name: 'Project sections' });
    expect(await tabs.getByRole('link').allInnerTexts()).toEqual(['Deployments', 'Environments', 'Configuration', 'API keys', 'Activity']);
    expect(await tabs.locator('[aria-current="page"]').innerText()).toBe('Deployments');
    expect(await p.locator('#deployments table tbody tr').count()).toBe(2);
    expect(await p.locator('#configuration').count()).toBe(0);

    await tabs.getByRole('link', { name: 'Configuration' }).click();
    await p.waitForURL(`${server.url}/dashboard/projects/${projectId}/configuration`);
    expect(await tabs.locator('[aria-current="page"]').innerText()).toBe('Configuration');
    expect(await p.locator('#configuration').innerText()).toContain('API_TOKEN');
    expect(await p.locator('#deployments').count()).toBe(0);

    await tabs.getByRole('link', { name: 'API keys' }).click();
    await p.waitForURL(`${server.url}/dashboard/projects/${projectId}/api-keys`);
    expect(await p.locator('#api-keys table tbody tr').innerText()).toContain('CI deploy');

    await tabs.getByRole('link', { name: 'Activity' }).click();
    await p.waitForURL(`${server.url}/dashboard/projects/${projectId}/activity`);
    const activity = await v1(server, `/v1/events?project_id=${projectId}&per_page=100`, { cookie });
    expect(await p.locator('#activity table tbody tr').count()).toBe(activity.body!.pagination.total);
    await noScript.close();
  });
});

describe('deployment page', () => {
  it('shows a deployment and its status history from the recorded deployment events; a status change appears in it', async () => {
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    await page.getByRole('link', { name: 'Deployment production main' }).click();
    await page.waitForURL(`${server.url}/dashboard/projects/${projectId}/deployments/${deploymentId}`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Deployment to production');
    const history = page.locator('ol.history li');
    expect(await history.count()).toBe(4);
    const steps = (await history.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    expect(steps[0]).toContain('Created queued');
    expect(steps[1]).toContain('queued → building');
    expect(steps[3]).toContain('deploying → succeeded');
    expect(steps[3]).toContain(`user ${owner._id}`);

    // The staging deployment's own page: only its own history; moved from its page, back to its page.
    const staging = (await v1(server, `/v1/projects/${projectId}/deployments?environment=staging`, { cookie })).body!.data[0];
    await page.goto(`${server.url}/dashboard/projects/${projectId}/deployments/${staging.id}`);
    expect(await history.count()).toBe(1);
    await page.getByLabel('New status').selectOption('failed');
    await Promise.all([page.waitForURL(`${server.url}/dashboard/projects/${projectId}/deployments/${staging.id}`), page.getByRole('button', { name: 'Update status' }).click()]);
    expect(await page.locator('.page-head .badge').innerText()).toBe('failed');
    expect(await history.count()).toBe(2);
    expect((await history.last().innerText()).replace(/\s+/g, ' ')).toContain('queued → failed');

    const missing = await page.goto(`${server.url}/dashboard/projects/${projectId}/deployments/dep_01jd8x7p2c4e6g8j0k2m4n6q8s`);
    expect(missing!.status()).toBe(404);
  });
});

describe('accessibility and layout', () => {
  it('every dashboard page has 0 axe-core violations (WCAG 2.2 A/AA) in light and dark, and fits 390 px', { timeout: 180_000 }, async () => {
    const pages: [string, string][] = [
      ['projects', '/dashboard/projects'],
      ['project-deployments', `/dashboard/projects/${projectId}`],
      ['project-configuration', `/dashboard/projects/${projectId}/configuration`],
      ['project-api-keys', `/dashboard/projects/${projectId}/api-keys`],
      ['project-activity', `/dashboard/projects/${projectId}/activity`],
      ['deployment', `/dashboard/projects/${projectId}/deployments/${deploymentId}`],
      ['events', '/dashboard/events'],
      ['api-keys', `/dashboard/settings/api-keys?project=${projectId}`],
      ['users', '/dashboard/settings/users'],
      ['oauth-apps', '/dashboard/settings/oauth-apps'],
      ['webhooks', '/dashboard/settings/webhooks'],
      ['trusted-ci', `/dashboard/settings/trusted-ci?project=${projectId}`],
      ['account', '/dashboard/account'],
      ['project-delete-confirm', `/dashboard/projects/${projectId}/delete`],
      ['not-found', '/dashboard/nowhere'],
      ['setup-link-invalid', '/dashboard/setup?token=slwsu_nothing'],
    ];
    const problems: string[] = [];
    for (const [name, path] of pages) {
      await page.goto(`${server.url}${path}`);
      problems.push(...(await axeViolations(page)).map((v) => `${path}: ${v}`));
      await narrowLayout(page, `a11y-${name}`);
    }
    // Non-text contrast (WCAG 1.4.11, which axe does not check): form field borders against the panel, 3:1 at least.
    await page.goto(`${server.url}/dashboard/projects`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const ratios = await page.evaluate<number[]>(`(() => {
        const rgb = (c) => c.match(/[0-9.]+/g).slice(0, 3).map(Number);
        const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
        const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m); return (x + 0.05) / (y + 0.05); };
        return [...document.querySelectorAll('main input:not([type=hidden]), main select')].map((el) => {
          let bg = el.parentElement; while (bg && getComputedStyle(bg).backgroundColor === 'rgba(0, 0, 0, 0)') bg = bg.parentElement;
          return ratio(rgb(getComputedStyle(el).borderTopColor), rgb(getComputedStyle(bg ?? document.body).backgroundColor));
        });
      })()`);
      expect(ratios.length).toBeGreaterThan(0);
      for (const r of ratios) expect(r, `${colorScheme}: a field border has contrast ${r.toFixed(2)}:1`).toBeGreaterThanOrEqual(3);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    // A form shown with its errors.
    await page.goto(`${server.url}/dashboard/projects`);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('[aria-invalid="true"]').count()).toBeGreaterThan(0);
    problems.push(...(await axeViolations(page)).map((v) => `projects (form errors): ${v}`));
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

describe('the API reference', () => {
  it('/docs has 0 axe-core violations in light and dark, and fits 390 px', { timeout: 180_000 }, async () => {
    await page.goto(`${server.url}/docs`);
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'docs', { fullPage: false });
  });
});

describe('navigation at 390 px', () => {
  it('is one row; the Settings group is a menu that opens without scripts', async () => {
    const noScript = await env.browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState(), viewport: { width: 390, height: 844 } });
    const p = await noScript.newPage();
    await p.goto(`${server.url}/dashboard/projects`);
    const nav = p.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Projects', 'Events', 'Account']);
    await nav.locator('summary').click();
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Projects', 'Events', 'API Keys', 'Users', 'OAuth Apps', 'Webhooks', 'Trusted CI', 'Account']);
    await narrowLayout(p, 'nav-menu-open');
    await Promise.all([p.waitForURL(`${server.url}/dashboard/settings/users`), nav.getByRole('link', { name: 'Users' }).click()]);
    // On a Settings page the menu is marked as the current section; the page's link is aria-current.
    expect(await nav.locator('summary.current').innerText()).toContain('Settings');
    expect(await nav.locator('[aria-current="page"]:visible').getAttribute('href')).toBe('/dashboard/settings/users');
    // At desktop width the group is inline instead.
    await p.setViewportSize({ width: 1280, height: 800 });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Projects', 'Events', 'API Keys', 'Users', 'OAuth Apps', 'Webhooks', 'Trusted CI', 'Account']);
    await noScript.close();
  });
});

describe('signing out', () => {
  it('ends the authorization server’s session too: an app’s next authorization asks for the password again; the signed-out page leads back', async () => {
    const { client } = await makeClient(server, { account_id: owner.account_id, redirect_uris: [callback.redirectUri], first_party: true });
    const oidcConfig = await discoverPublicClient(server.issuer, client._id, 'oauth2');
    const authorize = async () => {
      const { url } = await buildPkceRequest(oidcConfig, callback.redirectUri, 'read');
      await page.goto(url.href);
      await page.waitForLoadState('load');
      return page.url();
    };
    const sessionCookies = async () => (await context.cookies()).filter((c) => c.name === '_session').length;

    // Signed in to the dashboard: the authorization server still knows this browser (no password asked).
    expect(await sessionCookies()).toBe(1);
    expect(await authorize()).toMatch(new RegExp(`^${callback.redirectUri}\\?code=`));

    await page.goto(`${server.url}/dashboard/account`);
    await Promise.all([page.waitForURL(`${server.url}/dashboard/signed-out`), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(await sessionCookies()).toBe(0);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Signed out');
    expect(await axeViolations(page)).toEqual([]);
    await narrowLayout(page, 'signed-out');

    // The same authorization now shows the login page.
    const after = await authorize();
    expect(after).toMatch(new RegExp(`^${server.url}/oauth/interaction/`));
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    // The sign-in page every dashboard visit starts from meets the same bar.
    expect(await axeViolations(page)).toEqual([]);

    // And the signed-out page's link leads to a sign-in that asks for the password.
    await page.goto(`${server.url}/dashboard/signed-out`);
    await page.getByRole('link', { name: 'Sign in again' }).click();
    await page.waitForURL(new RegExp(`^${server.url}/oauth/interaction/`));
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await Promise.all([page.waitForURL(`${server.url}/dashboard/projects`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Projects');
    await context.close();
  });
});
