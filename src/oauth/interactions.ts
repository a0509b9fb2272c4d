import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Config } from '../config/index.ts';
import type { Metrics } from '../http/metrics.ts';
import { sourceKey } from '../http/clientAddress.ts';
import { clientOf } from '../http/requestContext.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';
import { verifyAgainstDummy, verifyPassword } from '../services/passwords.ts';
import { readDevice, rememberDevice } from './deviceCookie.ts';
import { takeLoginNotice } from './loginNotice.ts';
import { renderConsent, renderLogin, renderMessage } from './views.ts';

const GENERIC_LOGIN_ERROR = 'The email or password is not correct.';

/** Where this request's answer goes: the redirect URI's host (with port), or its scheme for an app's private-use URI. */
function redirectHostOf(redirectUri: unknown): string {
  try {
    const url = new URL(String(redirectUri));
    return url.host || `${url.protocol}`;
  } catch {
    return 'an unknown address';
  }
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * Login and consent pages of the authorization server. They sit in front of the provider's mount so the
 * provider keeps its own OAuth error handling.
 */
export function createInteractionRouter({ config, provider, repos, logger, metrics }: { config: Config; provider: Provider; repos: Repositories; logger: Logger; metrics: Metrics }) {
  const router = new Router({ prefix: '/oauth/interaction' });
  const form = koaBody({ urlencoded: true, json: false, multipart: false, text: false, formLimit: '16kb' });

  /** Loads the interaction bound to this browser; a missing or expired one shows a friendly page. */
  async function details(ctx: Context): Promise<Details | undefined> {
    try {
      const found = await provider.interactionDetails(ctx.req, ctx.res);
      if (found.uid !== ctx.params.uid) throw new errors.SessionNotFound('interaction mismatch');
      return found;
    } catch (err) {
      if (err instanceof errors.SessionNotFound || err instanceof errors.InvalidRequest) {
        ctx.status = 400;
        ctx.type = 'html';
        ctx.body = renderMessage(
          'This sign-in has expired',
          'The sign-in request is missing or has expired. Go back to the application and start again.',
        );
        return undefined;
      }
      throw err;
    }
  }

  async function finish(ctx: Context, result: Record<string, unknown>, merge: boolean): Promise<void> {
    const location = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
    ctx.status = 303;
    ctx.redirect(location);
  }

  async function clientName(clientId: string): Promise<{ name: string; firstParty: boolean; accountId: string | null }> {
    const client = await repos.oauthClients.findById(clientId);
    return { name: client?.client_name ?? clientId, firstParty: client?.first_party ?? false, accountId: client?.account_id ?? null };
  }

  async function grantConsent(ctx: Context, interaction: Details): Promise<void> {
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
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await repos.consents.remember(accountId, clientId, grantId);
    logger.info({ request_id: ctx.state.requestId, client_id: clientId, user_id: accountId }, 'consent granted');
    await finish(ctx, { consent: { grantId } }, true);
  }

  router.get('/:uid', async (ctx) => {
    const interaction = await details(ctx);
    if (!interaction) return;
    const client = await clientName(interaction.params.client_id as string);
    ctx.set('Cache-Control', 'no-store');
    if (interaction.prompt.name === 'login') {
      const notice = takeLoginNotice(ctx);
      ctx.type = 'html';
      ctx.body = renderLogin({
        action: `/oauth/interaction/${interaction.uid}/login`,
        clientName: client.name,
        ...(notice ? { notice: notice.text, ...(notice.email ? { email: notice.email } : {}) } : {}),
      });
      return;
    }
    // First-party clients are registered by the operator only (CLI), so they are trusted for every
    // account. Any other client may sign in users of any account (the GitHub model), always after that
    // user's consent, and its tokens act in the user's own account.
    if (client.firstParty) return await grantConsent(ctx, interaction);
    const user = await repos.users.findById(interaction.session!.accountId);
    // Who registered the client and where the answer goes, so a look-alike name cannot pass for another app.
    const registeredBy = client.accountId ? await repos.accounts.findById(client.accountId) : null;
    const missing = interaction.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    const scopes = [...new Set([...Object.values(missing.missingResourceScopes ?? {}).flat(), ...(missing.missingOIDCScope ?? [])])];
    ctx.type = 'html';
    ctx.body = renderConsent({
      action: `/oauth/interaction/${interaction.uid}/confirm`,
      denyAction: `/oauth/interaction/${interaction.uid}/abort`,
      clientName: client.name,
      userEmail: user?.email ?? '',
      scopes,
      registeredBy: registeredBy?.name ?? 'an unknown organization',
      otherOrganization: !user || client.accountId !== user.account_id,
      redirectHost: redirectHostOf(interaction.params.redirect_uri),
    });
  });

  router.post('/:uid/login', form, async (ctx) => {
    const interaction = await details(ctx);
    if (!interaction) return;
    if (interaction.prompt.name !== 'login') {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = renderMessage('Already signed in', 'This step is complete. Go back to the application and start again.');
      return;
    }
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase().slice(0, 254) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const client = await clientName(interaction.params.client_id as string);
    const show = (status: number, error: string) => {
      ctx.status = status;
      ctx.type = 'html';
      ctx.body = renderLogin({ action: `/oauth/interaction/${interaction.uid}/login`, clientName: client.name, email, error });
    };

    // Throttling (README "Login throttling"): a guess at one e-mail from one source, every attempt from
    // one source (password spraying), and a high ceiling per e-mail over all sources. Wrong passwords
    // from one source never lock the user out of another: one source alone cannot reach the ceiling.
    // A browser that signed this user in before (device cookie) is counted in its own budget instead,
    // so attempts from elsewhere, however many sources they come from, cannot lock it out.
    const user = email ? await repos.users.findByEmail(email) : null;
    const device = readDevice(ctx);
    const knownDevice = user && device?.userId === user._id ? device : undefined;
    const emailKey = createHash('sha256').update(email).digest('base64url');
    const source = sourceKey(ctx.ip);
    const results = await Promise.all(
      knownDevice
        ? [repos.rateLimits.hit(`login-device:${knownDevice.deviceId}`, config.loginPerDevicePerMinute, 60)]
        : [
            repos.rateLimits.hit(`login-email-ip:${emailKey}:${source}`, config.loginPerEmailAndSourcePerMinute, 60),
            repos.rateLimits.hit(`login-ip:${source}`, config.loginPerSourcePerMinute, 60),
            repos.rateLimits.hit(`login-email:${emailKey}`, config.loginPerEmailPerMinute, 60),
          ],
    );
    const refused = results.filter((r) => !r.allowed);
    if (refused.length) {
      const retry = Math.max(...refused.map((r) => r.resetSeconds));
      ctx.set('Retry-After', String(retry));
      metrics.login('throttled');
      logger.warn({ request_id: ctx.state.requestId, ...clientOf(ctx) }, 'login rate limited');
      return show(429, `Too many sign-in attempts. Try again in ${retry} seconds.`);
    }

    const ok = user?.password_hash ? await verifyPassword(user.password_hash, password) : await verifyAgainstDummy(password);
    if (!user || !ok) {
      metrics.login('failed');
      logger.info({ request_id: ctx.state.requestId, ...clientOf(ctx) }, 'login failed');
      return show(401, GENERIC_LOGIN_ERROR);
    }
    rememberDevice(ctx, user._id, device);
    await repos.users.recordLogin(user._id);
    metrics.login('ok');
    logger.info({ request_id: ctx.state.requestId, user_id: user._id, ...clientOf(ctx) }, 'login succeeded');
    await finish(ctx, { login: { accountId: user._id } }, false);
  });

  router.post('/:uid/confirm', form, async (ctx) => {
    const interaction = await details(ctx);
    if (!interaction) return;
    if (interaction.prompt.name !== 'consent') {
      ctx.status = 400;
      ctx.type = 'html';
      ctx.body = renderMessage('Nothing to confirm', 'This step is complete. Go back to the application and start again.');
      return;
    }
    await grantConsent(ctx, interaction);
  });

  router.post('/:uid/abort', form, async (ctx) => {
    const interaction = await details(ctx);
    if (!interaction) return;
    await finish(ctx, { error: 'access_denied', error_description: 'The user denied the request.' }, false);
  });

  return router;
}
