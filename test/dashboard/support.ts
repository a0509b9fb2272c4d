import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import type { TestServer } from '../support/server.ts';

export const SCREENSHOT_DIR = path.join(PROJECT_ROOT, 'test-artifacts', 'screenshots');

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 375, height: 800 },
} as const;

/**
 * A browser context signed in to the dashboard the way a person does it: /dashboard → /dashboard/login
 * → the authorization server's login page → back to the page asked for, with the session cookie set.
 */
export async function signIn(browser: Browser, server: TestServer, user: { email: string; password: string }, start = '/dashboard/projects') {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const page = await context.newPage();
  await page.goto(`${server.url}${start}`);
  // The authorization server's own login page (one login implementation for apps and the dashboard).
  expect(page.url()).toMatch(new RegExp(`^${server.url}/oauth/interaction/`));
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await Promise.all([page.waitForURL(`${server.url}${start}`), page.getByRole('button', { name: 'Sign in' }).click()]);
  return { context, page };
}

export async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === 'slipway_session');
  if (!cookie) throw new Error('no session cookie');
  return cookie.value;
}

/** The session's CSRF token, as every page carries it (the sign-out form's hidden field). */
export async function csrfOf(page: Page): Promise<string> {
  return await page.locator('form.signout input[name="_csrf"]').inputValue();
}

/**
 * Full-page screenshots at desktop width and at 375 px, into test-artifacts/screenshots/. At 375 px
 * the page must not scroll sideways.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.setViewportSize(VIEWPORTS.mobile);
  // In the page (a string: this project's TypeScript has no DOM types): how far it scrolls sideways, and what sticks out.
  const overflow = await page.evaluate<{ by: number; wide: string[] }>(`(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + [...el.classList].join('.'));
    return { by: document.documentElement.scrollWidth - width, wide: wide.slice(-5) };
  })()`);
  expect(overflow.by, `${name} scrolls sideways at 375 px: ${overflow.wide.join(', ')}`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-375.png`), fullPage: true });
  await page.setViewportSize(VIEWPORTS.desktop);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-desktop.png`), fullPage: true });
}

/** A form post as a script (or another site) would send it: the browser's cookie, fields chosen by the caller. */
export async function postForm(server: TestServer, pathname: string, cookie: string, fields: Record<string, string>) {
  return await fetch(`${server.url}${pathname}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `slipway_session=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
}

export async function v1(server: TestServer, pathname: string, auth: { bearer?: string; cookie?: string; csrf?: string }, init: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  if (auth.cookie) headers.cookie = `slipway_session=${auth.cookie}`;
  if (auth.csrf) headers['x-csrf-token'] = auth.csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${pathname}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : null }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * The page at 390 px (a current phone): nothing scrolls sideways (document.scrollWidth is the viewport's
 * width), the navigation takes one row, and a full-page screenshot goes to test-artifacts/screenshots.
 */
export async function narrowLayout(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const measured = await page.evaluate<{ scroll: number; client: number; navRows: number; tops: string }>(`(() => {
    const links = [...document.querySelectorAll('nav.nav > ul > li')].filter((li) => li.getClientRects().length > 0);
    const rows = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)));
    return { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, navRows: rows.size, tops: links.map((a) => a.textContent.trim().slice(0, 12) + '@' + Math.round(a.getBoundingClientRect().top)).join(', ') };
  })()`);
  expect(measured.scroll, `${name} scrolls sideways at 390 px`).toBeLessThanOrEqual(measured.client);
  expect(measured.navRows, `${name}: the navigation takes more than one row at 390 px (${measured.tops})`).toBeLessThanOrEqual(1);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-390.png`), fullPage: options.fullPage ?? true });
  await page.setViewportSize(VIEWPORTS.desktop);
}

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

/**
 * axe-core's WCAG 2.x A/AA rules on the page as it is, in light and in dark (`prefers-color-scheme`).
 * The engine is evaluated through the DevTools protocol (as a test tool would be), not as a page script:
 * the page's CSP allows only its own scripts.
 */
export async function axeViolations(target: Page): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await target.emulateMedia({ colorScheme });
    if (!(await target.evaluate<boolean>('typeof window.axe === "object"'))) await target.evaluate(AXE_SOURCE);
    const { violations, passes } = await target.evaluate<{ violations: AxeViolation[]; passes: string[] }>(
      `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_TAGS)} }, resultTypes: ['violations'] }).then((r) => ({ passes: r.passes.map((p) => p.id), violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })) }))`,
    );
    // The rules that matter most here did run (a page they could not check would pass vacuously).
    expect([...passes, ...violations.map((v) => v.id)]).toEqual(expect.arrayContaining(['color-contrast']));
    for (const v of violations) found.push(`[${colorScheme}] ${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
  }
  await target.emulateMedia({ colorScheme: 'light' });
  return found;
}
