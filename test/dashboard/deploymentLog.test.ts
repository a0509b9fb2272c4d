import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, csrfOf, sessionCookie, signIn, v1 } from './support.ts';

/*
 * A deployment's page shows its log (docs/product.md §10): stderr and system lines told apart, paging and
 * "jump to end" without JavaScript, and, with it, the log followed live while the deployment runs.
 */
const env = useBrowserServer({ overrides: { logPollIntervalMs: 100 } });
let server: TestServer;
let context: BrowserContext;
let page: Page;
let auth: { cookie: string; csrf: string };
let projectId: string;

beforeAll(async () => {
  ({ server } = env);
  const owner = await makeUser(server, { role: 'owner', name: 'Olivia Owner' });
  ({ context, page } = await signIn(env.browser, server, owner));
  auth = { cookie: await sessionCookie(context), csrf: await csrfOf(page) };
  const project = await v1(server, '/v1/projects', auth, { method: 'POST', body: { name: 'Logs' } });
  expect(project.status).toBe(201);
  projectId = project.body!.id;
});

async function deployment(): Promise<{ id: string; url: string; logs: string }> {
  const created = await v1(server, `/v1/projects/${projectId}/deployments`, auth, { method: 'POST', body: { environment: 'production', branch: 'main' } });
  expect(created.status).toBe(201);
  const id = created.body!.id as string;
  return { id, url: `${server.url}/dashboard/projects/${projectId}/deployments/${id}`, logs: `/v1/projects/${projectId}/deployments/${id}/logs` };
}

async function append(logs: string, lines: { text: string; stream?: string }[]) {
  const res = await v1(server, logs, auth, { method: 'POST', body: { lines } });
  expect(res.status).toBe(202);
}

describe('a deployment\'s log', () => {
  it('without JavaScript: the last lines, stderr and system marked, links to earlier lines and to the end', async () => {
    const d = await deployment();
    await append(d.logs, Array.from({ length: 600 }, (_, i) => ({ text: `line ${i + 1}`, ...(i === 598 ? { stream: 'stderr' } : {}), ...(i === 599 ? { stream: 'system' } : {}) })));
    const noScript = await env.browser.newContext({ javaScriptEnabled: false });
    await noScript.addCookies(await context.cookies());
    const plain = await noScript.newPage();
    await plain.goto(d.url);
    const lines = plain.locator('ol.log > li');
    expect(await lines.count()).toBe(500);
    expect(await lines.first().locator('.log-text').textContent()).toBe('line 101');
    expect(await plain.locator('li#L599').getAttribute('class')).toContain('log-stderr');
    expect(await plain.locator('li#L600').getAttribute('class')).toContain('log-system');
    expect(await plain.locator('li#L599').textContent()).toContain('(stderr)');
    await plain.getByRole('link', { name: 'Earlier lines' }).click();
    expect(await plain.locator('ol.log > li').first().locator('.log-text').textContent()).toBe('line 1');
    await plain.getByRole('link', { name: 'Jump to end' }).click();
    expect(plain.url()).toMatch(/#log-end$/);
    expect(await plain.locator('ol.log > li').last().locator('.log-text').textContent()).toBe('line 600');
    await noScript.close();
  });

  it('with JavaScript: lines appended while the page is open appear; the end of the deployment is said', async () => {
    const d = await deployment();
    await append(d.logs, [{ text: 'first' }]);
    await page.goto(d.url);
    expect(await page.locator('ol.log').getAttribute('data-follow')).toBe(`${d.logs}?after=1`);
    await append(d.logs, [{ text: 'second' }, { text: 'oops', stream: 'stderr' }]);
    await page.locator('li#L3.log-stderr').waitFor({ timeout: 5000 });
    expect(await page.locator('ol.log > li .log-text').allTextContents()).toEqual(['first', 'second', 'oops']);
    expect((await v1(server, `/v1/projects/${projectId}/deployments/${d.id}`, auth, { method: 'PATCH', body: { status: 'failed' } })).status).toBe(200);
    await page.getByText('The deployment has finished (failed)').waitFor({ timeout: 5000 });
    expect(await axeViolations(page)).toEqual([]);
  });
});
