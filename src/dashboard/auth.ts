import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Config } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { renderMessage } from '../oauth/views.ts';
import { html } from '../lib/html.ts';
import { renderPage } from './layout.ts';
import { DASHBOARD_CLIENT_ID, dashboardRedirectUri } from '../services/dashboardClient.ts';
import type { Services } from '../services/index.ts';
import { SESSION_ABSOLUTE_MS, SESSION_COOKIE, type SessionService } from '../services/sessions.ts';
import { FORM_NOT_VERIFIED, formIsOurs } from './csrf.ts';
import { formBody, str } from './forms.ts';

const LOGIN_COOKIE = 'slipway_dashboard_login';
/** RFC 7636 S256: the code challenge of a verifier. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Only same-site dashboard paths are followed after sign-in (no open redirects). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/dashboard(\/|$|\?)/.test(next) && !next.includes('//') && !next.includes('\\') ? next : '/dashboard';
}

export function sessionCookieOptions(config: Config) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.publicUrl.startsWith('https:'),
    path: '/',
    overwrite: true,
    signed: false,
  };
}

type AuthDeps = { config: Config; provider: Provider; services: Pick<Services, 'dashboardClient'>; sessions: SessionService; logger: Logger };

/** What the sign-in page left in its cookie for the callback: the state, the PKCE verifier, where to go. */
interface PendingSignIn {
  state?: string;
  verifier?: string;
  next?: string;
}

const loginCookieOptions = (config: Config) => ({ httpOnly: true, sameSite: 'lax' as const, secure: config.publicUrl.startsWith('https:'), path: '/dashboard', signed: true, overwrite: true });

function problem(ctx: Context, status: number, title: string, message: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = renderMessage(title, message);
}

/**
 * Signing out of the dashboard also ends the authorization server's session in this browser (its
 * `_session` cookie, signed with the same cookie keys as this app's): otherwise an app asking this
 * browser to authorize would find the user still signed in. Done server-side rather than through
 * RP-initiated logout, which would add a confirmation page and revoke the grants of every other app
 * the user signed in to. The session record is destroyed, then the cookie cleared.
 */
async function endProviderSession(provider: Provider, ctx: Context): Promise<void> {
  const name = provider.cookieName('session');
  const id = ctx.cookies.get(name, { signed: true });
  if (id) {
    const session = await provider.Session.find(id);
    if (session) await session.destroy();
  }
  ctx.cookies.set(name, null, { signed: true, httpOnly: true, sameSite: 'lax', path: '/', overwrite: true });
}

const ACCOUNT_ID = /^acct_[0-9a-z]{26}$/;

/** Sign-in: a fresh state and PKCE verifier in a signed cookie, then the authorization server's login. */
function login(config: Config) {
  return (ctx: Context) => {
    const state = randomBytes(24).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const pending: PendingSignIn = { state, verifier, next: safeNext(ctx.query.next) };
    ctx.cookies.set(LOGIN_COOKIE, JSON.stringify(pending), { ...loginCookieOptions(config), maxAge: 10 * 60 * 1000 });
    const params = new URLSearchParams({
      client_id: DASHBOARD_CLIENT_ID,
      response_type: 'code',
      redirect_uri: dashboardRedirectUri(config),
      scope: 'read',
      state,
      code_challenge: s256(verifier),
      code_challenge_method: 'S256',
      prompt: 'login',
      // The account switcher (Account page): sign in to that account of the person's (docs/product.md §11).
      ...(typeof ctx.query.account === 'string' && ACCOUNT_ID.test(ctx.query.account) ? { account_hint: ctx.query.account } : {}),
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`/oauth/authorize?${params}`);
  };
}

/** The sign-in state this browser started (read once: the cookie is cleared). */
function takePending(ctx: Context, config: Config): PendingSignIn {
  const raw = ctx.cookies.get(LOGIN_COOKIE, { signed: true });
  ctx.cookies.set(LOGIN_COOKIE, null, loginCookieOptions(config));
  try {
    return raw ? (JSON.parse(raw) as PendingSignIn) : {};
  } catch {
    return {};
  }
}

const INVALID_RESPONSE = 'The sign-in response was not valid. Please sign in again.';

/**
 * The authorization code of this callback, when it was issued to the dashboard for this browser's
 * sign-in (redirect URI, PKCE S256 verifier) and this request is the one that consumes it; else the
 * problem page is sent and null returned.
 */
async function consumedCode(ctx: Context, { config, provider, logger }: AuthDeps, pending: PendingSignIn) {
  const refuse = (title: string, message = INVALID_RESPONSE) => {
    problem(ctx, 400, title, message);
    return null;
  };
  const { code, state, iss, error } = ctx.query;
  if (!pending.state || state !== pending.state) return refuse('Sign-in expired', 'This sign-in link is no longer valid. Please sign in again.');
  if (typeof error === 'string') return refuse('Sign-in cancelled', 'You were not signed in.');
  if (iss !== config.issuer || typeof code !== 'string' || code.length > 200) return refuse('Sign-in failed');
  const authorization = await provider.AuthorizationCode.find(code);
  if (
    !authorization ||
    !authorization.isValid ||
    authorization.clientId !== DASHBOARD_CLIENT_ID ||
    authorization.redirectUri !== dashboardRedirectUri(config) ||
    authorization.codeChallengeMethod !== 'S256' ||
    authorization.codeChallenge !== s256(pending.verifier ?? '')
  )
    return refuse('Sign-in failed');
  // Claimed exactly once (a unique insert, src/repositories/oidc/adapter.ts), however many requests
  // bring this code and sign-in state at once, on any instance: only the winner gets a session.
  try {
    await authorization.consume();
  } catch (err) {
    if (!(err instanceof errors.InvalidGrant)) throw err;
    logger.warn({ request_id: ctx.state.requestId }, 'dashboard sign-in refused: the code was already used');
    return refuse('Sign-in failed');
  }
  return authorization;
}

/** The callback: a consumed code for an existing user becomes a dashboard session. */
function callback(deps: AuthDeps) {
  const { config, sessions, logger } = deps;
  return async (ctx: Context) => {
    ctx.set('Cache-Control', 'no-store');
    const pending = takePending(ctx, config);
    const authorization = await consumedCode(ctx, deps, pending);
    if (!authorization) return;
    const user = await deps.services.dashboardClient.user(authorization.accountId);
    if (!user) return problem(ctx, 403, 'Sign-in failed', 'This account no longer exists.');
    const { token } = await sessions.create(user._id, user.account_id);
    ctx.cookies.set(SESSION_COOKIE, token, { ...sessionCookieOptions(config), maxAge: SESSION_ABSOLUTE_MS });
    logger.info({ request_id: ctx.state.requestId, user_id: user._id }, 'dashboard session started');
    ctx.redirect(safeNext(pending.next));
  };
}

/**
 * Sign-out (a form with the session's CSRF token): ends the session and the authorization server's;
 * with `switch_to` (an account of the person's), goes on to sign in to that account.
 */
function logout({ config, provider, sessions, logger }: AuthDeps) {
  return async (ctx: Context) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const found = token ? await sessions.authenticate(token) : null;
    const form = formBody(ctx.request.body);
    if (found && !formIsOurs(ctx, form, found.session.csrf_token))
      return problem(ctx, 403, 'Request refused', FORM_NOT_VERIFIED);
    if (token) await sessions.revoke(token);
    ctx.cookies.set(SESSION_COOKIE, null, sessionCookieOptions(config));
    await endProviderSession(provider, ctx);
    if (found) logger.info({ request_id: ctx.state.requestId, user_id: found.principal.id }, 'dashboard session ended');
    ctx.status = 303;
    // The account switcher (Account page): signed out here, the sign-in to that account starts.
    const switchTo = str(form, 'switch_to');
    ctx.redirect(found && ACCOUNT_ID.test(switchTo) ? `/dashboard/login?account=${switchTo}` : '/dashboard/signed-out');
  };
}

function signedOut(ctx: Context): void {
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = renderPage({
    title: 'Signed out',
    body: html`<div class="narrow">
<h1>Signed out</h1>
<div class="panel">
<p>You are signed out of the Slipway dashboard, and of its sign-in page: the next sign-in asks for your password again.</p>
<p class="form-actions"><a class="button" href="/dashboard/login">Sign in again</a></p>
</div>
</div>`,
  });
}

/**
 * Sign-in, callback and sign-out. The dashboard is a first-party public client of the authorization
 * server (DashboardClientService): sign-in is the authorization code flow with PKCE through the
 * server's own login page, and the code is turned into an opaque session token.
 */
export function createDashboardAuthRouter(deps: AuthDeps) {
  const router = new Router({ prefix: '/dashboard' });
  const form = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  router.get('/login', login(deps.config));
  router.get('/callback', callback(deps));
  router.post('/logout', form, logout(deps));
  router.get('/signed-out', signedOut);
  return router;
}
