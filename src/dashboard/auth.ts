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
import type { Repositories } from '../repositories/index.ts';
import { SESSION_COOKIE, SessionService } from '../services/sessions.ts';
import { SESSION_ABSOLUTE_MS } from '../repositories/sessions.ts';

export const DASHBOARD_CLIENT_ID = 'slipway-dashboard';
const LOGIN_COOKIE = 'slipway_dashboard_login';
/** RFC 7636 S256: the code challenge of a verifier. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export const dashboardRedirectUri = (config: Config) => `${config.publicUrl}/dashboard/callback`;

/**
 * The dashboard signs people in through the authorization server's own login page (one login
 * implementation, one brute-force guard): it is a first-party public client using the authorization
 * code flow with PKCE, and turns the code into an opaque session token instead of keeping OAuth tokens.
 */
export async function ensureDashboardClient(repos: Repositories, config: Config): Promise<void> {
  const now = new Date();
  await repos.oauthClients.collection.updateOne(
    { _id: DASHBOARD_CLIENT_ID },
    {
      $set: {
        account_id: 'system',
        client_name: 'Slipway Dashboard',
        redirect_uris: [dashboardRedirectUri(config)],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        scope: 'read',
        first_party: true,
        client_secret_hash: null,
        updated_at: now,
      },
      $setOnInsert: { created_at: now },
    },
    { upsert: true },
  );
}

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

export function createDashboardAuthRouter(deps: { config: Config; provider: Provider; repos: Repositories; sessions: SessionService; logger: Logger }) {
  const { config, provider, sessions, repos, logger } = deps;
  const router = new Router({ prefix: '/dashboard' });
  const form = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  const loginCookie = { httpOnly: true, sameSite: 'lax' as const, secure: config.publicUrl.startsWith('https:'), path: '/dashboard', signed: true, overwrite: true };

  const problem = (ctx: Context, status: number, title: string, message: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = renderMessage(title, message);
  };

  /**
   * Signing out of the dashboard also ends the authorization server's session in this browser (its
   * `_session` cookie, signed with the same cookie keys as this app's): otherwise an app asking this
   * browser to authorize would find the user still signed in. Done server-side rather than through
   * RP-initiated logout, which would add a confirmation page and revoke the grants of every other app
   * the user signed in to. The session record is destroyed, then the cookie cleared.
   */
  async function endProviderSession(ctx: Context): Promise<void> {
    const name = provider.cookieName('session');
    const id = ctx.cookies.get(name, { signed: true });
    if (id) {
      const session = await provider.Session.find(id);
      if (session) await session.destroy();
    }
    ctx.cookies.set(name, null, { signed: true, httpOnly: true, sameSite: 'lax', path: '/', overwrite: true });
  }

  router.get('/login', (ctx) => {
    const state = randomBytes(24).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = s256(verifier);
    ctx.cookies.set(LOGIN_COOKIE, JSON.stringify({ state, verifier, next: safeNext(ctx.query.next) }), { ...loginCookie, maxAge: 10 * 60 * 1000 });
    const params = new URLSearchParams({
      client_id: DASHBOARD_CLIENT_ID,
      response_type: 'code',
      redirect_uri: dashboardRedirectUri(config),
      scope: 'read',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      prompt: 'login',
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`/oauth/authorize?${params}`);
  });

  router.get('/callback', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const raw = ctx.cookies.get(LOGIN_COOKIE, { signed: true });
    ctx.cookies.set(LOGIN_COOKIE, null, loginCookie);
    let pending: { state?: string; verifier?: string; next?: string } = {};
    try {
      pending = raw ? (JSON.parse(raw) as typeof pending) : {};
    } catch {
      pending = {};
    }
    const { code, state, iss, error } = ctx.query;
    if (!pending.state || state !== pending.state) return problem(ctx, 400, 'Sign-in expired', 'This sign-in link is no longer valid. Please sign in again.');
    if (typeof error === 'string') return problem(ctx, 400, 'Sign-in cancelled', 'You were not signed in.');
    if (iss !== config.issuer || typeof code !== 'string' || code.length > 200)
      return problem(ctx, 400, 'Sign-in failed', 'The sign-in response was not valid. Please sign in again.');

    const authorization = await provider.AuthorizationCode.find(code);
    const expected = s256(pending.verifier ?? '');
    if (
      !authorization ||
      !authorization.isValid ||
      authorization.clientId !== DASHBOARD_CLIENT_ID ||
      authorization.redirectUri !== dashboardRedirectUri(config) ||
      authorization.codeChallengeMethod !== 'S256' ||
      authorization.codeChallenge !== expected
    )
      return problem(ctx, 400, 'Sign-in failed', 'The sign-in response was not valid. Please sign in again.');
    // Claimed exactly once (a unique insert, src/repositories/oidc/adapter.ts), however many requests bring
    // this code and sign-in state at once, on any instance: only the winner gets a session.
    try {
      await authorization.consume();
    } catch (err) {
      if (!(err instanceof errors.InvalidGrant)) throw err;
      logger.warn({ request_id: ctx.state.requestId }, 'dashboard sign-in refused: the code was already used');
      return problem(ctx, 400, 'Sign-in failed', 'The sign-in response was not valid. Please sign in again.');
    }

    const user = authorization.accountId ? await repos.users.findById(authorization.accountId) : null;
    if (!user) return problem(ctx, 403, 'Sign-in failed', 'This account no longer exists.');
    const { token } = await sessions.create(user._id, user.account_id);
    ctx.cookies.set(SESSION_COOKIE, token, { ...sessionCookieOptions(config), maxAge: SESSION_ABSOLUTE_MS });
    logger.info({ request_id: ctx.state.requestId, user_id: user._id }, 'dashboard session started');
    ctx.redirect(safeNext(pending.next));
  });

  router.post('/logout', form, async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const found = token ? await sessions.authenticate(token) : null;
    const csrf = (ctx.request.body as Record<string, unknown> | undefined)?._csrf;
    if (found && !SessionService.csrfMatches(found.session, typeof csrf === 'string' ? csrf : undefined))
      return problem(ctx, 403, 'Request refused', 'The form was out of date. Reload the page and try again.');
    if (token) await sessions.revoke(token);
    ctx.cookies.set(SESSION_COOKIE, null, sessionCookieOptions(config));
    await endProviderSession(ctx);
    if (found) logger.info({ request_id: ctx.state.requestId, user_id: found.principal.id }, 'dashboard session ended');
    ctx.status = 303;
    ctx.redirect('/dashboard/signed-out');
  });

  router.get('/signed-out', (ctx) => {
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
  });

  return router;
}
