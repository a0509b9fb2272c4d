import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Metrics } from '../http/metrics.ts';
import { sourceKey } from '../http/clientAddress.ts';
import { clientOf } from '../http/requestContext.ts';
import type { Logger } from '../logger.ts';
import type { InteractionClient, LoginService } from '../services/login.ts';
import { readDevice, rememberDevice } from './deviceCookie.ts';
import { takeLoginNotice } from './loginNotice.ts';
import { renderChooser, renderConsent, renderLogin, renderMessage } from './views.ts';
import { chooserOf, forgetChooser, rememberChooser } from './chooserCookie.ts';

const GENERIC_LOGIN_ERROR = 'The email or password is not correct.';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

interface InteractionDeps {
  provider: Provider;
  /** The sign-in rules: credentials, throttling, the consent page's facts (src/services/login.ts). */
  login: LoginService;
  logger: Logger;
  metrics: Metrics;
}

/** Where this request's answer goes: the redirect URI's host (with port), or its scheme for an app's private-use URI. */
function redirectHostOf(redirectUri: unknown): string {
  try {
    const url = new URL(String(redirectUri));
    return url.host || `${url.protocol}`;
  } catch {
    return 'an unknown address';
  }
}

function showMessage(ctx: Context, status: number, title: string, text: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = renderMessage(title, text);
}

/** Loads the interaction bound to this browser; a missing or expired one shows a friendly page. */
async function loadInteraction(provider: Provider, ctx: Context): Promise<Details | undefined> {
  try {
    const found = await provider.interactionDetails(ctx.req, ctx.res);
    if (found.uid !== ctx.params.uid) throw new errors.SessionNotFound('interaction mismatch');
    return found;
  } catch (err) {
    if (err instanceof errors.SessionNotFound || err instanceof errors.InvalidRequest) {
      showMessage(ctx, 400, 'This sign-in has expired', 'The sign-in request is missing or has expired. Go back to the application and start again.');
      return undefined;
    }
    throw err;
  }
}

async function finish(provider: Provider, ctx: Context, result: Record<string, unknown>, merge: boolean): Promise<void> {
  const location = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
  ctx.status = 303;
  ctx.redirect(location);
}

/** Grants what the authorization asks for that the grant lacks, remembers the consent, and resumes. */
async function grantConsent({ provider, login, logger }: InteractionDeps, ctx: Context, interaction: Details): Promise<void> {
  const { prompt, params, session, grantId: existing } = interaction;
  const accountId = session!.accountId;
  const clientId = params.client_id as string;
  const grant = (existing ? await provider.Grant.find(existing) : undefined) ?? new provider.Grant({ accountId, clientId });
  const missing = prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  await login.rememberConsent(accountId, clientId, grantId);
  logger.info({ request_id: ctx.state.requestId, client_id: clientId, user_id: accountId }, 'consent granted');
  await finish(provider, ctx, { consent: { grantId } }, true);
}

function showLogin(ctx: Context, interaction: Details, client: InteractionClient): void {
  const notice = takeLoginNotice(ctx);
  ctx.type = 'html';
  ctx.body = renderLogin({
    action: `/oauth/interaction/${interaction.uid}/login`,
    clientName: client.name,
    ...(notice ? { notice: notice.text, ...(notice.email ? { email: notice.email } : {}) } : {}),
  });
}

async function showConsent(login: LoginService, ctx: Context, interaction: Details, client: InteractionClient): Promise<void> {
  const facts = await login.consentFacts(client, interaction.session!.accountId);
  const missing = interaction.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  const scopes = [...new Set([...Object.values(missing.missingResourceScopes ?? {}).flat(), ...(missing.missingOIDCScope ?? [])])];
  ctx.type = 'html';
  ctx.body = renderConsent({
    action: `/oauth/interaction/${interaction.uid}/confirm`,
    denyAction: `/oauth/interaction/${interaction.uid}/abort`,
    clientName: client.name,
    scopes,
    ...facts,
    redirectHost: redirectHostOf(interaction.params.redirect_uri),
  });
}

/** GET: the page of the interaction's prompt, sign-in or consent. */
function showPrompt(deps: InteractionDeps) {
  return async (ctx: Context) => {
    const interaction = await loadInteraction(deps.provider, ctx);
    if (!interaction) return;
    const client = await deps.login.client(interaction.params.client_id as string);
    ctx.set('Cache-Control', 'no-store');
    if (interaction.prompt.name === 'login') return showLogin(ctx, interaction, client);
    // First-party clients are registered by the operator only (CLI), so they are trusted for every
    // account. Any other client may sign in users of any account (the GitHub model), always after that
    // user's consent, and its tokens act in the user's own account.
    if (client.firstParty) return await grantConsent(deps, ctx, interaction);
    await showConsent(deps.login, ctx, interaction, client);
  };
}

/** POST login: the sign-in form, answered by the login service; a success remembers this browser. */
function submitLogin(deps: InteractionDeps) {
  const { provider, login, logger, metrics } = deps;
  return async (ctx: Context) => {
    const interaction = await loadInteraction(provider, ctx);
    if (!interaction) return;
    if (interaction.prompt.name !== 'login')
      return showMessage(ctx, 400, 'Already signed in', 'This step is complete. Go back to the application and start again.');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const client = await login.client(interaction.params.client_id as string);
    const device = readDevice(ctx);
    const hint = interaction.params.account_hint;
    const attempt = {
      email: typeof body.email === 'string' ? body.email : '',
      password: typeof body.password === 'string' ? body.password : '',
      source: sourceKey(ctx.ip),
      ...(device ? { device } : {}),
    };
    const result = await login.signIn(attempt, typeof hint === 'string' ? hint : undefined);
    const show = (status: number, error: string) => {
      ctx.status = status;
      ctx.type = 'html';
      ctx.body = renderLogin({ action: `/oauth/interaction/${interaction.uid}/login`, clientName: client.name, email: result.email, error });
    };
    if (result.outcome === 'throttled') {
      ctx.set('Retry-After', String(result.retryAfterSeconds));
      metrics.login('throttled');
      logger.warn({ request_id: ctx.state.requestId, ...clientOf(ctx) }, 'login rate limited');
      return show(429, `Too many sign-in attempts. Try again in ${result.retryAfterSeconds} seconds.`);
    }
    if (result.outcome === 'refused') {
      metrics.login('failed');
      logger.info({ request_id: ctx.state.requestId, ...clientOf(ctx) }, 'login failed');
      return show(401, GENERIC_LOGIN_ERROR);
    }
    if (result.outcome === 'choose') {
      // The password is proven: this browser is the person's. The login completes with their choice.
      rememberDevice(ctx, result.identityId, device);
      rememberChooser(ctx, interaction.uid, result.identityId);
      ctx.type = 'html';
      ctx.body = renderChooser({ action: `/oauth/interaction/${interaction.uid}/account`, clientName: client.name, email: result.email, accounts: result.accounts });
      return;
    }
    rememberDevice(ctx, result.userId, device);
    metrics.login('ok');
    logger.info({ request_id: ctx.state.requestId, user_id: result.userId, ...clientOf(ctx) }, 'login succeeded');
    await finish(provider, ctx, { login: { accountId: result.userId } }, false);
  };
}

/** POST account: the chooser's answer, for the person who proved their password in this interaction. */
function chooseAccount(deps: InteractionDeps) {
  const { provider, login, logger, metrics } = deps;
  return async (ctx: Context) => {
    const interaction = await loadInteraction(provider, ctx);
    if (!interaction) return;
    const identityId = chooserOf(ctx, interaction.uid);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (interaction.prompt.name !== 'login' || !identityId)
      return showMessage(ctx, 400, 'Sign in again', 'This choice has expired. Go back to the application and start again.');
    const userId = typeof body.account === 'string' ? await login.chooseAccount(identityId, body.account) : null;
    if (!userId) return showMessage(ctx, 400, 'Not an account of yours', 'You are not a member of that account. Go back to the application and start again.');
    forgetChooser(ctx, interaction.uid);
    metrics.login('ok');
    logger.info({ request_id: ctx.state.requestId, user_id: userId, ...clientOf(ctx) }, 'login succeeded');
    await finish(provider, ctx, { login: { accountId: userId } }, false);
  };
}

/** POST confirm: the user consents. */
function confirmConsent(deps: InteractionDeps) {
  return async (ctx: Context) => {
    const interaction = await loadInteraction(deps.provider, ctx);
    if (!interaction) return;
    if (interaction.prompt.name !== 'consent')
      return showMessage(ctx, 400, 'Nothing to confirm', 'This step is complete. Go back to the application and start again.');
    await grantConsent(deps, ctx, interaction);
  };
}

/** POST abort: the user denies; the client gets `access_denied`. */
function abort({ provider }: InteractionDeps) {
  return async (ctx: Context) => {
    const interaction = await loadInteraction(provider, ctx);
    if (!interaction) return;
    await finish(provider, ctx, { error: 'access_denied', error_description: 'The user denied the request.' }, false);
  };
}

/**
 * Login and consent pages of the authorization server. They sit in front of the provider's mount so the
 * provider keeps its own OAuth error handling.
 */
export function createInteractionRouter(deps: InteractionDeps): Router {
  const router = new Router({ prefix: '/oauth/interaction' });
  const form = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });
  router.get('/:uid', showPrompt(deps));
  router.post('/:uid/login', form, submitLogin(deps));
  router.post('/:uid/account', form, chooseAccount(deps));
  router.post('/:uid/confirm', form, confirmConsent(deps));
  router.post('/:uid/abort', form, abort(deps));
  return router;
}
