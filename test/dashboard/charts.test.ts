import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import type { DeploymentDoc } from '../../src/repositories/deployments.ts';
import type { DeploymentStatus } from '../../src/domain/deployments.ts';
import { makeUser } from '../support/factories.ts';
import { useBrowserServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { axeViolations, csrfOf, screenshots, sessionCookie, signIn, v1 } from './support.ts';

/*
 * The project page's chart: deployments per day for the last 30 days by outcome, and the median time to
 * succeed. Its numbers must be the API's (the same deployments, counted from GET …/deployments), in both
 * themes, with a table alternative and no axe-core violation.
 */
const env = useBrowserServer();
let server: TestServer;
let context: BrowserContext;
let page: Page;
let cookie: string;
let csrf: string;
let projectId: string;
let accountId: string;

const DAY = 86_400_000;
const OUTCOME: Record<DeploymentStatus, string> = { succeeded: 'succeeded', superseded: 'succeeded', failed: 'failed', canceled: 'canceled', queued: 'in_progress', building: 'in_progress', deploying: 'in_progress', waiting: 'in_progress', rejected: 'canceled' };

/** A deployment as the service stores it, created `daysAgo` days back (the chart reads history that tests cannot wait for). */
function pastDeployment(daysAgo: number, status: DeploymentStatus, secondsToFinish: number): DeploymentDoc {
  const created = new Date(Date.now() - daysAgo * DAY - 60_000);
  const finished = ['succeeded', 'superseded', 'failed', 'canceled'].includes(status) ? new Date(created.getTime() + secondsToFinish * 1000) : null;
  return {
    _id: newId('deployment', created.getTime()),
    account_id: accountId,
    project_id: projectId,
    environment: 'production',
    branch: 'main',
    commit_sha: null,
    status,
    status_message: null,
    url: null,
    created_by: { type: 'user', id: 'usr_seed' },
    created_at: created,
    updated_at: finished ?? created,
    started_at: created,
    finished_at: finished,
  };
}

beforeAll(async () => {
  ({ server } = env);
  const owner = await makeUser(server, { role: 'owner' });
  accountId = owner.account_id;
  ({ context, page } = await signIn(env.browser, server, owner));
  cookie = await sessionCookie(context);
  csrf = await csrfOf(page);
  const project = await v1(server, '/v1/projects', { cookie, csrf }, { method: 'POST', body: { name: 'Charted' } });
  projectId = project.body!.id;
  // History: a mix of outcomes over the month, one older than the chart's 30 days, and today's through the API.
  const seeded: [number, DeploymentStatus, number][] = [
    [0, 'failed', 30], [1, 'succeeded', 120], [1, 'succeeded', 300], [1, 'canceled', 10], [3, 'superseded', 90], [6, 'failed', 45],
    [10, 'succeeded', 600], [10, 'building', 0], [17, 'succeeded', 240], [22, 'canceled', 5], [29, 'succeeded', 60], [45, 'succeeded', 9999],
  ];
  for (const [daysAgo, status, seconds] of seeded) await server.repos.deployments.insert(pastDeployment(daysAgo, status, seconds));
  for (const move of [['building', 'deploying', 'succeeded'], []]) {
    const created = await v1(server, `/v1/projects/${projectId}/deployments`, { cookie, csrf }, { method: 'POST', body: { environment: 'staging', branch: 'main' } });
    for (const status of move) await v1(server, `/v1/projects/${projectId}/deployments/${created.body!.id}`, { cookie, csrf }, { method: 'PATCH', body: { status } });
  }
});

/** What the API says, counted the way the chart promises: per UTC day of the last 30, by outcome; the median time to succeed. */
async function expectedFromApi() {
  const all: { status: DeploymentStatus; created_at: string; finished_at: string | null }[] = [];
  for (let pageNo = 1; ; pageNo++) {
    const res = await v1(server, `/v1/projects/${projectId}/deployments?per_page=100&page=${pageNo}`, { cookie });
    all.push(...(res.body!.data as typeof all));
    if (all.length >= res.body!.pagination.total) break;
  }
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = new Map<string, Record<string, number>>();
  for (let i = 29; i >= 0; i--) days.set(new Date(today - i * DAY).toISOString().slice(0, 10), { succeeded: 0, failed: 0, canceled: 0, in_progress: 0 });
  const durations: number[] = [];
  for (const d of all) {
    const day = days.get(d.created_at.slice(0, 10));
    if (!day) continue;
    day[OUTCOME[d.status]]! += 1;
    if (OUTCOME[d.status] === 'succeeded' && d.finished_at) durations.push((Date.parse(d.finished_at) - Date.parse(d.created_at)) / 1000);
  }
  durations.sort((a, b) => a - b);
  const mid = Math.floor(durations.length / 2);
  const median = durations.length % 2 ? durations[mid]! : (durations[mid - 1]! + durations[mid]!) / 2;
  return { days: [...days.values()], median, total: all.length };
}

describe('the project page chart', () => {
  it('shows deployments per day by outcome and the median time to succeed, as the API counts them, in light and dark', async () => {
    const expected = await expectedFromApi();
    expect(expected.total).toBe(14);
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const figure = page.locator('figure#deployments-per-day');
      expect(await figure.locator('svg[role="img"] > title').count()).toBe(1);
      const rows = await page.evaluate<Record<string, number>[]>(
        `[...document.querySelectorAll('table[data-chart="deployments-per-day"] tbody tr')].map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.series, Number(td.textContent)])))`,
      );
      expect(rows).toEqual(expected.days);
      const median = Number(await page.locator('[data-stat="median-seconds"]').getAttribute('data-value'));
      expect(median).toBeCloseTo(expected.median, 3);
      // Every non-empty day is drawn: one rect per non-zero outcome, filled from the theme's variables.
      const drawn = await figure.locator('svg rect').count();
      expect(drawn).toBe(expected.days.reduce((n, d) => n + Object.values(d).filter(Boolean).length, 0));
      const fills = await page.evaluate<string[]>(`[...new Set([...document.querySelectorAll('figure#deployments-per-day svg rect')].map((r) => getComputedStyle(r).fill))]`);
      expect(fills.length).toBe(4);
      const legend = await figure.locator('.chart-legend li').allInnerTexts();
      expect(legend.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
        `Succeeded ${expected.days.reduce((n, d) => n + d.succeeded!, 0)}`,
        `Failed ${expected.days.reduce((n, d) => n + d.failed!, 0)}`,
        `Canceled ${expected.days.reduce((n, d) => n + d.canceled!, 0)}`,
        `In progress ${expected.days.reduce((n, d) => n + d.in_progress!, 0)}`,
      ]);
      await screenshots(page, `chart-deployments-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('has a table alternative and no axe-core violation in either theme', async () => {
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    await page.locator('figure#deployments-per-day details summary').click();
    expect(await page.locator('table[data-chart="deployments-per-day"]').isVisible()).toBe(true);
    const description = await page.locator('figure#deployments-per-day svg desc').textContent();
    const { days } = await expectedFromApi();
    const inPeriod = days.reduce((n, d) => n + Object.values(d).reduce((a, b) => a + b, 0), 0);
    expect(inPeriod).toBe(13); // the 45-day-old one is outside
    expect(description).toMatch(new RegExp(`^${inPeriod} deployments in the last 30 days: `));
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a project without deployments says so, and its chart is empty but present', async () => {
    const empty = await v1(server, '/v1/projects', { cookie, csrf }, { method: 'POST', body: { name: 'Quiet' } });
    await page.goto(`${server.url}/dashboard/projects/${empty.body!.id}`);
    expect(await page.locator('[data-stat="median-seconds"]').innerText()).toBe('no successful deployment yet');
    expect(await page.locator('figure#deployments-per-day svg rect').count()).toBe(0);
    expect(await page.locator('table[data-chart="deployments-per-day"] tbody tr').count()).toBe(30);
  });
});

describe('the Account page chart', () => {
  it('draws each quota’s use as the API counts it, with its limit, in light and dark, with no axe-core violation', async () => {
    const counts = {
      projects: (await v1(server, '/v1/projects?per_page=1', { cookie })).body!.pagination.total as number,
      users: (await v1(server, '/v1/users?per_page=1', { cookie })).body!.pagination.total as number,
      webhooks: (await v1(server, '/v1/webhooks?per_page=1', { cookie })).body!.pagination.total as number,
      oauth_clients: (await v1(server, '/v1/oauth_clients?per_page=1', { cookie })).body!.pagination.total as number,
    };
    expect(counts.projects).toBeGreaterThanOrEqual(1);
    const limits = {
      projects: server.config.quotaProjects,
      users: server.config.quotaUsers,
      webhooks: server.config.quotaWebhooks,
      oauth_clients: server.config.quotaOauthClients,
    };
    await page.goto(`${server.url}/dashboard/account`);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const drawn = await page.evaluate<Record<string, { used: number; limit: number; width: number }>>(
        `Object.fromEntries([...document.querySelectorAll('figure#quota-usage g[data-usage]')].map((g) => [g.dataset.usage, { used: Number(g.dataset.used), limit: Number(g.dataset.limit), width: g.querySelector('.meter-fill').getBBox().width }]))`,
      );
      for (const [kind, used] of Object.entries(counts)) {
        expect(drawn[kind], kind).toMatchObject({ used, limit: limits[kind as keyof typeof limits] });
        // The bar is as long as the share of the limit used (at least a sliver when anything is used).
        const track = 640 - 150 - 130;
        expect(drawn[kind]!.width).toBeCloseTo(Math.max(used > 0 ? 2 : 0, (used / limits[kind as keyof typeof limits]) * track), 0);
      }
      const description = await page.locator('figure#quota-usage svg desc').textContent();
      expect(description).toContain(`Projects: ${counts.projects} of ${limits.projects}`);
      await screenshots(page, `chart-quotas-${colorScheme}`);
    }
    expect(await axeViolations(page)).toEqual([]);
  });
});
