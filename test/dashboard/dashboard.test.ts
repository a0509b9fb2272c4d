import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { csrfOf, postForm, screenshots, sessionCookie, signIn, v1 } from './support.ts';

const env = useBrowserServer();
let server: TestServer, browser: Browser;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;
let ownerContext: BrowserContext;
let page: Page;
let projectId: string;
/** Every secret the dashboard showed or was given; none may appear in the server's log. */
const secrets: string[] = [];

const API_KEY = /^slw_[0-9A-Za-z]{38}$/;

beforeAll(async () => {
  ({ server, browser } = env);
  owner = await makeUser(server, { role: 'owner', name: 'Olivia Owner' });
  viewer = await makeUser(server, { role: 'viewer', name: 'Victor Viewer', account_id: owner.account_id });
});

describe('signing in', () => {
  it('sends a visitor without a session to sign in, through the authorization server’s login page, and back', async () => {
    const anonymous = await fetch(`${server.url}/dashboard/settings/api-keys?project=x`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(`/dashboard/login?next=${encodeURIComponent('/dashboard/settings/api-keys?project=x')}`);

    const signedIn = await signIn(browser, server, owner);
    ownerContext = signedIn.context;
    page = signedIn.page;
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Projects');
    expect(await page.locator('.who').innerText()).toContain(owner.email);

    const cookie = (await ownerContext.cookies()).find((c) => c.name === 'slipway_session')!;
    expect(cookie.value).toMatch(/^slws_/);
    secrets.push(cookie.value, owner.password, viewer.password);
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');

    // Keyboard: the first Tab lands on "Skip to content", which moves focus past the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('project-name');

    const home = await fetch(`${server.url}/dashboard`, { redirect: 'manual', headers: { cookie: `slipway_session=${cookie.value}` } });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/dashboard/projects');
    const unknown = await fetch(`${server.url}/dashboard/nowhere`, { headers: { cookie: `slipway_session=${cookie.value}` } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);

    const response = await page.reload();
    const headers = response!.headers();
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
  });
});

describe('projects', () => {
  it('shows errors next to the fields, then creates a project and changes its status', async () => {
    await page.goto(`${server.url}/dashboard/projects`);
    await screenshots(page, 'projects-empty');
    // Nothing typed: the error is next to the field and tied to it.
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForLoadState('load');
    const name = page.getByLabel('Name', { exact: true });
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await name.getAttribute('aria-describedby'))!;
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await page.locator(`#${errorId}`).innerText()).toMatch(/\S/);
    await screenshots(page, 'projects-form-error');

    await name.fill('Checkout <Service>');
    await page.getByLabel('Deploy target').selectOption('fly');
    await Promise.all([page.waitForURL(/\/dashboard\/projects\/proj_/), page.getByRole('button', { name: 'Create project' }).click()]);
    projectId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Checkout <Service>');
    expect(await page.getByRole('status').innerText()).toContain('created');

    // The same name again (other case): a conflict, shown at the name field.
    await page.goto(`${server.url}/dashboard/projects`);
    await page.getByLabel('Name', { exact: true }).fill('checkout <service>');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#project-name-error').innerText()).toContain('already exists');

    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('.page-head .badge').innerText()).toBe('paused');
    expect((await v1(server, `/v1/projects/${projectId}`, { cookie: await sessionCookie(ownerContext) })).body!.status).toBe('paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('.page-head .badge').innerText()).toBe('active');
  });

  it('pages the list', async () => {
    for (const n of [1, 2]) {
      await page.goto(`${server.url}/dashboard/projects`);
      await page.getByLabel('Name', { exact: true }).fill(`Extra ${n}`);
      await Promise.all([page.waitForURL(/\/dashboard\/projects\/proj_/), page.getByRole('button', { name: 'Create project' }).click()]);
    }
    await page.goto(`${server.url}/dashboard/projects?per_page=2`);
    expect(await page.locator('.pager').innerText()).toContain('Page 1 of 2');
    expect(await page.locator('table.list tbody tr').count()).toBe(2);
    await page.getByRole('link', { name: /Next/ }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('.pager').innerText()).toContain('Page 2 of 2');
    expect(await page.locator('table.list tbody tr').innerText()).toContain('Checkout <Service>');
    await page.goto(`${server.url}/dashboard/projects`);
    await screenshots(page, 'projects');
  });

  it('deletes a project only after a confirmation step', async () => {
    await page.goto(`${server.url}/dashboard/projects`);
    await page.getByRole('link', { name: 'Extra 1' }).click();
    await page.getByRole('link', { name: 'Delete project…' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain('Delete project “Extra 1”?');
    await screenshots(page, 'project-delete-confirm');
    const doomed = page.url().split('/').at(-2)!;
    expect(await server.repos.projects.collection.countDocuments({ _id: doomed })).toBe(1);
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.waitForURL(`${server.url}/dashboard/projects`);
    expect(await page.getByRole('status').innerText()).toContain('deleted');
    expect(await server.repos.projects.collection.countDocuments({ _id: doomed })).toBe(0);
  });

  it('project page: deployments with filters and status, configuration with masked secrets an admin can reveal', async () => {
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    for (const [environment, branch] of [
      ['production', 'main'],
      ['staging', 'feature/login'],
    ]) {
      await page.locator('#deploy-environment').fill(environment!);
      await page.locator('#deploy-branch').fill(branch!);
      await page.getByRole('button', { name: 'Create deployment' }).click();
      await page.waitForLoadState('load');
    }
    // A bad branch name is refused next to the field.
    await page.locator('#deploy-environment').fill('production');
    await page.locator('#deploy-branch').fill('bad..branch');
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#deploy-branch-error').isVisible()).toBe(true);

    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    await page.getByLabel('New status for production main').selectOption('building');
    await page.getByRole('button', { name: 'Update status of production main' }).click();
    await page.waitForLoadState('load');
    const deployments = page.locator('#deployments table tbody tr');
    expect(await deployments.count()).toBe(2);

    await page.locator('#dfilter-status').selectOption('building');
    await page.getByRole('button', { name: 'Filter' }).first().click();
    await page.waitForLoadState('load');
    expect(await deployments.count()).toBe(1);
    expect(await deployments.innerText()).toContain('production');
    await page.goto(`${server.url}/dashboard/projects/${projectId}?environment=staging`);
    expect(await deployments.count()).toBe(1);
    expect(await deployments.innerText()).toContain('feature/login');

    // Configuration is the project page's second tab.
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Configuration' }).click();
    await page.waitForURL(`${server.url}/dashboard/projects/${projectId}/configuration`);
    await page.locator('#config-environment').fill('production');
    await page.locator('#config-key').fill('DATABASE_URL');
    await page.locator('#config-value').fill('postgres://db.internal/checkout');
    await page.getByLabel('Secret: stored encrypted, shown masked').check();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.waitForLoadState('load');
    await page.locator('#config-environment').fill('production');
    await page.locator('#config-key').fill('LOG_LEVEL');
    await page.locator('#config-value').fill('info');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.waitForLoadState('load');
    const configuration = page.locator('#configuration');
    expect(await configuration.innerText()).toContain('info');
    expect(await page.content()).not.toContain('postgres://db.internal/checkout');
    await screenshots(page, 'project');

    await page.getByRole('button', { name: 'Reveal DATABASE_URL (production)' }).click();
    await page.waitForLoadState('load');
    expect(await configuration.locator('code.revealed').innerText()).toBe('postgres://db.internal/checkout');
    await page.goto(`${server.url}/dashboard/projects/${projectId}/configuration`);
    expect(await page.content()).not.toContain('postgres://db.internal/checkout');
  });
});

describe('Settings > API Keys', () => {
  let key: string;
  let rotated: string;

  it('Create Key shows the key once, with a copy button; it works on /v1; a reload never shows it again', async () => {
    await page.goto(`${server.url}/dashboard/projects`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API Keys' }).click();
    await page.waitForURL(`${server.url}/dashboard/settings/api-keys`);
    expect(await page.getByRole('heading', { name: 'Create Key' }).isVisible()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('GitHub Actions deploy');
    await page.getByLabel('Project', { exact: true }).first().selectOption(projectId);
    await page.getByLabel('write: also create and change them').check();
    await screenshots(page, 'api-keys-empty');
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${server.url}/dashboard/settings/api-keys`),
      page.getByRole('button', { name: 'Create Key' }).click(),
    ]);
    await page.waitForLoadState('load');
    // Shown in the answer to the form itself, which no cache keeps.
    expect(created.status()).toBe(200);
    expect(created.headers()['cache-control']).toBe('no-store');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('API key created');
    expect(await page.getByText("you won't see it again").isVisible()).toBe(true);
    key = await page.getByLabel('Your new API key').inputValue();
    expect(key).toMatch(API_KEY);
    secrets.push(key);
    const copy = page.getByRole('button', { name: 'Copy' });
    expect(await copy.isVisible()).toBe(true); // the same-origin script ran under the page's CSP
    await copy.click();
    await expect.poll(() => page.locator('.copy-status').innerText()).toBe('Copied to the clipboard.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    await screenshots(page, 'api-key-created');

    // curl -H "Authorization: Bearer $KEY" /v1/projects
    const listed = await v1(server, '/v1/projects', { bearer: key });
    expect(listed.status).toBe(200);
    expect(listed.body!.data.map((p: { id: string }) => p.id)).toEqual([projectId]);

    // Reloading (the browser posts the form again) shows no key and creates nothing.
    await page.reload();
    await page.waitForLoadState('load');
    expect(page.url()).toBe(`${server.url}/dashboard/settings/api-keys`);
    expect(await page.getByRole('alert').innerText()).toContain('already submitted');
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('#new-api-key').count()).toBe(0);
    expect(await server.repos.apiKeys.collection.countDocuments({ project_id: projectId })).toBe(1);
    // Nor does the list: only the prefix and last four.
    await page.goto(`${server.url}/dashboard/settings/api-keys?project=${projectId}`);
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('table.list').innerText()).toContain(`${key.slice(0, 8)}…${key.slice(-4)}`);
    await screenshots(page, 'api-keys');
  });

  it('rotate with no grace period from the page: the old key is refused, the new one works', async () => {
    await page.goto(`${server.url}/dashboard/settings/api-keys?project=${projectId}`);
    await page.getByLabel('Grace period for GitHub Actions deploy').selectOption('0');
    await page.getByRole('button', { name: 'Rotate GitHub Actions deploy' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('API key rotated');
    rotated = await page.getByLabel('Your new API key').inputValue();
    expect(rotated).toMatch(API_KEY);
    expect(rotated).not.toBe(key);
    secrets.push(rotated);
    expect((await v1(server, '/v1/projects', { bearer: key })).status).toBe(401);
    expect((await v1(server, '/v1/projects', { bearer: rotated })).status).toBe(200);
  });

  it('revoke from the page (after confirming): the key is refused', async () => {
    await page.goto(`${server.url}/dashboard/settings/api-keys?project=${projectId}`);
    await page.getByRole('link', { name: 'Revoke GitHub Actions deploy…' }).click();
    await page.waitForLoadState('load');
    await screenshots(page, 'api-key-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(`${server.url}/dashboard/settings/api-keys?project=${projectId}`);
    expect(await page.locator('table.list').innerText()).toContain('revoked');
    const refused = await v1(server, '/v1/projects', { bearer: rotated });
    expect(refused.status).toBe(401);
    expect(refused.body!.error.code).toBe('invalid_token');
  });
});

describe('Settings > Users, OAuth Apps, Account', () => {
  it('an admin adds a user and changes a role', async () => {
    await page.goto(`${server.url}/dashboard/settings/users`);
    await page.getByLabel('Email').fill('dora@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Dora Developer');
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByLabel('Initial password').fill('short');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#user-password-error').isVisible()).toBe(true);
    expect(await page.getByLabel('Email').inputValue()).toBe('dora@example.com');
    await page.getByLabel('Initial password').fill('a long enough password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('User invited');
    await page.getByRole('link', { name: 'Back to users' }).click();
    await page.waitForLoadState('load');
    await page.getByLabel('Role of dora@example.com', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Change role of dora@example.com' }).click();
    await page.waitForLoadState('load');
    expect((await server.repos.users.collection.findOne({ email: 'dora@example.com' }))!.role).toBe('admin');
    await screenshots(page, 'users');

    // The service's rules hold here too: the last owner cannot step down.
    await page.getByLabel(`Role of ${owner.email}`, { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: `Change role of ${owner.email}` }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('alert').innerText()).toContain('last owner');
    expect((await server.repos.users.findById(owner._id))!.role).toBe('owner');

    await page.getByRole('link', { name: 'Remove dora@example.com…' }).click();
    await page.getByRole('button', { name: 'Remove user' }).click();
    await page.waitForURL(`${server.url}/dashboard/settings/users`);
    expect(await page.getByRole('status').innerText()).toContain('dora@example.com removed');
    expect(await server.repos.users.collection.findOne({ email: 'dora@example.com' })).toBeNull();
  });

  it('an admin registers a confidential app: the secret is shown once; then deletes it', async () => {
    await page.goto(`${server.url}/dashboard/settings/oauth-apps`);
    await page.getByLabel('Name', { exact: true }).fill('Billing portal');
    await page.getByLabel('Redirect URIs').fill('https://billing.example.com/callback');
    await page.getByLabel('Confidential: a server-side app that can keep a secret').check();
    await page.getByLabel(/Require DPoP/).check();
    await page.getByLabel(/Require pushed authorization requests/).check();
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('App registered');
    const secret = await page.getByLabel('Client secret').inputValue();
    expect(secret).toMatch(/^slwcs_/);
    secrets.push(secret);
    await screenshots(page, 'oauth-app-registered');
    await page.reload();
    await page.waitForLoadState('load');
    expect(await page.content()).not.toContain(secret);
    expect(await server.repos.oauthClients.collection.countDocuments({ account_id: owner.account_id })).toBe(1);
    expect(await server.repos.oauthClients.collection.findOne({ account_id: owner.account_id })).toMatchObject({ dpop_bound_access_tokens: true, require_pushed_authorization_requests: true });
    await page.goto(`${server.url}/dashboard/settings/oauth-apps`);
    expect(await page.locator('td[data-label="Type"]').innerText()).toMatch(/confidential\s+DPoP required\s+PAR required/);
    await screenshots(page, 'oauth-apps');
    await page.getByRole('link', { name: 'Delete Billing portal…' }).click();
    await page.getByRole('button', { name: 'Delete app' }).click();
    await page.waitForURL(`${server.url}/dashboard/settings/oauth-apps`);
    expect(await server.repos.oauthClients.collection.countDocuments({ account_id: owner.account_id })).toBe(0);
  });

  it('the signed-in user changes their own password', async () => {
    await page.goto(`${server.url}/dashboard/account`);
    await page.getByLabel('Current password').fill(owner.password);
    await page.getByLabel('New password', { exact: true }).fill('an entirely new passphrase');
    await page.getByLabel('Confirm new password').fill('something else entirely');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('#pw-confirm_password-error').innerText()).toMatch(/does not match/i);
    await screenshots(page, 'account-error');
    await page.getByLabel('Current password').fill(owner.password);
    await page.getByLabel('New password', { exact: true }).fill('an entirely new passphrase');
    await page.getByLabel('Confirm new password').fill('an entirely new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('status').innerText()).toContain('Password changed');
    owner.password = 'an entirely new passphrase';
    secrets.push(owner.password);
    // Still signed in, with a new session.
    await page.goto(`${server.url}/dashboard/account`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Account');
    await screenshots(page, 'account');
  });
});

describe('a viewer', () => {
  let viewerPage: Page;
  let viewerContext: BrowserContext;

  it('sees no write controls', async () => {
    ({ context: viewerContext, page: viewerPage } = await signIn(browser, server, viewer));
    expect(await viewerPage.locator('form[method="post"]:not(.signout)').count()).toBe(0);
    expect(await viewerPage.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    await screenshots(viewerPage, 'viewer-projects');

    await viewerPage.goto(`${server.url}/dashboard/projects/${projectId}`);
    expect(await viewerPage.getByRole('heading', { level: 1 }).innerText()).toBe('Checkout <Service>');
    expect(await viewerPage.locator('form[method="post"]:not(.signout)').count()).toBe(0);
    expect(await viewerPage.getByRole('link', { name: /Delete/ }).count()).toBe(0);
    await viewerPage.goto(`${server.url}/dashboard/projects/${projectId}/configuration`);
    expect(await viewerPage.locator('form[method="post"]:not(.signout)').count()).toBe(0);
    expect(await viewerPage.locator('.masked').count()).toBe(1);
    await screenshots(viewerPage, 'viewer-project');

    const keys = await viewerPage.goto(`${server.url}/dashboard/settings/api-keys`);
    expect(keys!.status()).toBe(403);
    expect(await viewerPage.getByRole('button', { name: 'Create Key' }).count()).toBe(0);
    expect(await viewerPage.locator('form[method="post"]:not(.signout)').count()).toBe(0);
    await screenshots(viewerPage, 'viewer-api-keys-refused');

    await viewerPage.goto(`${server.url}/dashboard/settings/users`);
    expect(await viewerPage.locator('table.list').innerText()).toContain(owner.email);
    expect(await viewerPage.locator('form[method="post"]:not(.signout)').count()).toBe(0);
  });

  it('forging the form posts anyway (their own cookie and a valid CSRF token) is refused', async () => {
    const cookie = await sessionCookie(viewerContext);
    const csrf = await csrfOf(viewerPage);
    const before = await server.repos.projects.collection.countDocuments({ account_id: owner.account_id });

    const create = await postForm(server, '/dashboard/projects', cookie, { _csrf: csrf, name: 'Forged' });
    expect(create.status).toBe(403);
    expect(await create.text()).toContain('does not allow this operation');
    const status = await postForm(server, `/dashboard/projects/${projectId}/status`, cookie, { _csrf: csrf, status: 'archived' });
    expect(status.status).toBe(403);
    const remove = await postForm(server, `/dashboard/projects/${projectId}/delete`, cookie, { _csrf: csrf });
    expect(remove.status).toBe(403);
    const key = await postForm(server, '/dashboard/settings/api-keys', cookie, { _csrf: csrf, _once: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'Forged', project_id: projectId, scopes: 'admin' });
    expect(key.status).toBe(403);
    expect(await key.text()).not.toMatch(/slw_[0-9A-Za-z]{38}/);
    const role = await postForm(server, `/dashboard/settings/users/${viewer._id}/role`, cookie, { _csrf: csrf, role: 'owner' });
    expect(role.status).toBe(403);

    expect(await server.repos.projects.collection.countDocuments({ account_id: owner.account_id })).toBe(before);
    expect((await server.repos.projects.collection.findOne({ _id: projectId }))!.status).toBe('active');
    expect(await server.repos.apiKeys.collection.countDocuments({ name: 'Forged' })).toBe(0);
    expect((await server.repos.users.findById(viewer._id))!.role).toBe('viewer');
    await viewerContext.close();
  });
});

describe('the session cookie', () => {
  it('without the CSRF token is refused, on a dashboard form and on /v1', async () => {
    const cookie = await sessionCookie(ownerContext);
    await page.goto(`${server.url}/dashboard/projects`);
    const csrf = await csrfOf(page);

    const form = await postForm(server, '/dashboard/projects', cookie, { name: 'No CSRF' });
    expect(form.status).toBe(403);
    expect(form.headers.get('content-type')).toMatch(/^text\/html/);
    const wrong = await postForm(server, '/dashboard/projects', cookie, { name: 'Wrong CSRF', _csrf: `${csrf.slice(0, -2)}xx` });
    expect(wrong.status).toBe(403);

    const api = await v1(server, '/v1/projects', { cookie }, { method: 'POST', body: { name: 'No CSRF' } });
    expect(api.status).toBe(403);
    expect(api.body!.error.code).toBe('forbidden');
    expect(await server.repos.projects.collection.countDocuments({ name: { $in: ['No CSRF', 'Wrong CSRF'] } })).toBe(0);

    // With it, the cookie acts as the user; reads need none; the token also works as a Bearer token.
    const made = await v1(server, '/v1/projects', { cookie, csrf }, { method: 'POST', body: { name: 'With CSRF' } });
    expect(made.status).toBe(201);
    expect((await v1(server, '/v1/projects', { cookie })).status).toBe(200);
    expect((await v1(server, '/v1/users/me', { bearer: cookie })).body!.email).toBe(owner.email);
  });

  it('is useless after logout: /v1 answers 401 and the dashboard sends to sign in', async () => {
    const cookie = await sessionCookie(ownerContext);
    await page.goto(`${server.url}/dashboard/account`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/dashboard/signed-out`);
    await screenshots(page, 'signed-out');

    const api = await v1(server, '/v1/projects', { cookie });
    expect(api.status).toBe(401);
    expect(api.body!.error.code).toBe('invalid_token');
    expect((await v1(server, '/v1/projects', { bearer: cookie })).status).toBe(401);
    const dashboard = await fetch(`${server.url}/dashboard/projects`, { redirect: 'manual', headers: { cookie: `slipway_session=${cookie}` } });
    expect(dashboard.status).toBe(303);
    expect(dashboard.headers.get('location')).toMatch(/^\/dashboard\/login\?next=/);
    await ownerContext.close();
  });
});

describe('the server log', () => {
  it('never contains a key, secret, password, session token or configuration secret', () => {
    const log = server.logs.join('\n');
    expect(log).toContain('dashboard session started');
    for (const secret of [...secrets, 'postgres://db.internal/checkout']) expect(log).not.toContain(secret);
  });
});
