import type { Context, Middleware, Next } from 'koa';
import { koaBody } from 'koa-body';
import type { Principal } from '../domain/principal.ts';
import type { Config } from '../config/index.ts';
import { AppError } from '../errors.ts';
import { isDatabaseUnavailable, UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../db/unavailable.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services/index.ts';
import { SESSION_COOKIE, type SessionDoc, type SessionService } from '../services/sessions.ts';
import type { UserDoc } from '../services/users.ts';
import { sessionCookieOptions } from './auth.ts';
import { FORM_NOT_VERIFIED, formIsOurs } from './csrf.ts';
import { formBody, type FormValues } from './forms.ts';
import { html } from '../lib/html.ts';
import { navItemOf, renderPage, type Flash, type PageOptions, type Viewer } from './layout.ts';

/** What the dashboard's pages use: the same services as /v1, and the session service. */
export interface DashboardDeps {
  config: Config;
  services: Services;
  sessions: SessionService;
  logger: Logger;
}

/** The signed-in user of this request, set by `requireSession`. */
export interface DashboardState {
  token: string;
  session: SessionDoc;
  principal: Principal;
  user: UserDoc;
  viewer: Viewer;
  /** The parsed form of an unsafe request (after the CSRF check). */
  form: FormValues;
}

export const dash = (ctx: Context): DashboardState => ctx.state.dashboard as DashboardState;


const FLASH_COOKIE = 'slipway_flash';
const SAFE = new Set(['GET', 'HEAD']);

function flashCookie(config: Config) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: config.publicUrl.startsWith('https:'), path: '/dashboard', signed: true, overwrite: true };
}

/**
 * Every dashboard page needs a session: without one (or with a signed-out, expired or idle one) a page
 * request is sent to sign in and brought back afterwards. Pages are never cached (they carry the CSRF
 * token and account data).
 */
export function requireSession({ sessions, services, config }: Pick<DashboardDeps, 'sessions' | 'services' | 'config'>): Middleware {
  return async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    const token = ctx.cookies.get(SESSION_COOKIE);
    const found = token ? await sessions.authenticate(token) : null;
    const user = found ? await services.dashboardClient.user(found.principal.id) : null;
    if (!token || !found || !user) {
      if (token) ctx.cookies.set(SESSION_COOKIE, null, sessionCookieOptions(config));
      const next = SAFE.has(ctx.method) ? ctx.originalUrl : '/dashboard';
      ctx.status = 303;
      ctx.redirect(`/dashboard/login?next=${encodeURIComponent(next)}`);
      return;
    }
    const state: DashboardState = {
      token,
      session: found.session,
      principal: found.principal,
      user,
      viewer: { email: user.email, role: user.role, csrf: found.session.csrf_token },
      form: {},
    };
    ctx.state.dashboard = state;
    await next();
  };
}

const parseForm = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '128kb' });

/**
 * Unsafe requests must be a form from one of our pages: the hidden `_csrf` field must equal the
 * session's token (synchronizer token). Anything else is refused with a 403 page before any handler runs.
 */
export const verifyForm: Middleware = async (ctx, next) => {
  if (SAFE.has(ctx.method)) return await next();
  await parseForm(ctx, async () => undefined);
  const state = dash(ctx);
  state.form = formBody(ctx.request.body);
  if (!formIsOurs(ctx, state.form, state.session.csrf_token))
    return problemPage(ctx, 403, 'Request refused', FORM_NOT_VERIFIED);
  await next();
};

/** A one-line message for the next page shown (Post/Redirect/Get). */
export function setFlash(ctx: Context, config: Config, flash: Flash): void {
  ctx.cookies.set(FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString('base64url'), { ...flashCookie(config), maxAge: 60_000 });
}

function takeFlash(ctx: Context, config: Config): Flash | undefined {
  const raw = ctx.cookies.get(FLASH_COOKIE, { signed: true });
  if (!raw) return undefined;
  ctx.cookies.set(FLASH_COOKIE, null, flashCookie(config));
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Flash>;
    if ((parsed.kind === 'success' || parsed.kind === 'error') && typeof parsed.text === 'string') return { kind: parsed.kind, text: parsed.text.slice(0, 500) };
  } catch {
    // An unreadable flash is dropped.
  }
  return undefined;
}

/** Renders a dashboard page for the signed-in user (and shows a pending flash message); the navigation entry follows the path. */
export function sendPage(ctx: Context, config: Config, options: Omit<PageOptions, 'viewer' | 'flash'> & { status?: number }): void {
  const state = ctx.state.dashboard as DashboardState | undefined;
  ctx.status = options.status ?? 200;
  ctx.type = 'html';
  const active = options.active ?? navItemOf(ctx.path);
  ctx.body = renderPage({ ...options, ...(active ? { active } : {}), ...(state ? { viewer: state.viewer } : {}), flash: ctx.status < 400 ? takeFlash(ctx, config) : undefined });
}

/** 303 See Other after a write, with an optional message for the page it leads to. */
export function seeOther(ctx: Context, config: Config, location: string, flash?: Flash): void {
  if (flash) setFlash(ctx, config, flash);
  ctx.status = 303;
  ctx.redirect(location);
}

function problemPage(ctx: Context, status: number, title: string, message: string): void {
  const state = ctx.state.dashboard as DashboardState | undefined;
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderPage({
    title,
    body: html`<h1>${title}</h1><p class="problem">${message}</p><p><a href="/dashboard/projects">Back to projects</a></p>`,
    ...(state ? { viewer: state.viewer } : {}),
  });
}

const TITLES: Record<number, string> = { 400: 'Bad request', 403: 'Not allowed', 404: 'Not found', 409: 'Conflict', 413: 'Too large', 422: 'Not valid', 429: 'Too many requests' };

/**
 * The dashboard's error pages: refusals from the services (403 forbidden or insufficient scope, 404,
 * 409...) are shown with their message; anything unexpected is logged and shown as a generic 500 page
 * with no internals.
 */
export function dashboardErrors(logger: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) problemPage(ctx, 404, 'Not found', 'There is no such page in the dashboard.');
    } catch (err) {
      if (err instanceof AppError) return problemPage(ctx, err.status, TITLES[err.status] ?? 'Request refused', err.message);
      if (isDatabaseUnavailable(err)) {
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        return problemPage(ctx, 503, 'Temporarily unavailable', UNAVAILABLE_MESSAGE);
      }
      const status = (err as { status?: number }).status;
      if (status && status >= 400 && status < 500 && (err as { expose?: boolean }).expose)
        return problemPage(ctx, status, TITLES[status] ?? 'Request refused', status === 413 ? 'The form is too large.' : 'The request could not be read.');
      (ctx.state.log ?? logger).error({ err }, 'dashboard request failed');
      problemPage(ctx, 500, 'Something went wrong', 'Something went wrong on our side. Please try again.');
    }
  };
}
