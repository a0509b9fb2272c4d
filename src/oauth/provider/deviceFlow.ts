import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/hash.ts';
import type { Logger } from '../../logger.ts';
import { renderDeviceCode, renderDeviceConfirm, renderErrorPage, renderMessage } from '../views.ts';
import { currentRequest } from './currentRequest.ts';
import { beforeDeviceCodeSaved, deviceCodeExpiryOn } from './internals.ts';
import { DEVICE_CODE_TTL_SECONDS } from './lifetimes.ts';
import type { ProviderStorage } from './storage.ts';

/*
 * The device authorization grant (RFC 8628, docs/product.md §12) for clients registered with it (the
 * first-party CLI, `slipway-cli`): oidc-provider's device flow with Slipway's pages, its clock and a
 * polling interval that is enforced. The throttling of code guesses per source sits in front of the
 * provider (src/oauth/deviceVerification.ts); a device code is redeemed once (./singleUse.ts).
 */

type DeviceFlowOptions = NonNullable<NonNullable<Configuration['features']>['deviceFlow']>;
type InputSource = NonNullable<DeviceFlowOptions['userCodeInputSource']>;

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.2: the seconds a device waits between two polls of the token endpoint. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

/** How much of a device's User-Agent is kept to show on the confirm page. */
const MAX_USER_AGENT = 300;

/** Another request answered this device code first (installDeviceFlow): the page of a used code. */
class AlreadyAnswered extends errors.InvalidRequest {
  constructor() {
    super('code has already been used');
  }
}

/** What a form oidc-provider built carries that our page needs again: its action and one-time token. */
function formParts(form: string): { action: string; xsrf: string } {
  return { action: /action="([^"]+)"/.exec(form)?.[1] ?? '', xsrf: /name="xsrf" value="([^"]+)"/.exec(form)?.[1] ?? '' };
}

function page(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** A code as a device link carried it (`verification_uri_complete`), kept only when it looks like one. */
const PREFILL = /^[A-Za-z]{4}-?[A-Za-z]{4}$/;

/**
 * The code form and what it answers (oidc-provider calls it with the error of a submission, if any):
 * a wrong code shows the form again with the message at the field; an expired or used code, a denial
 * and any other error have pages of their own.
 */
function userCodeInputSource(logger: Logger): InputSource {
  return async (ctx, form, out, err) => {
    const { action, xsrf } = formParts(form);
    const submitted = (err as { userCode?: string } | undefined)?.userCode;
    switch (err?.name) {
      case undefined: {
        const prefill = ctx.state.userCodePrefill as string | undefined;
        return page(ctx, 200, renderDeviceCode({ action, xsrf, userCode: prefill && PREFILL.test(prefill) ? prefill.toUpperCase() : undefined }));
      }
      case 'NoCodeError':
        return page(ctx, 400, renderDeviceCode({ action, xsrf, error: 'Enter the code your device shows.' }));
      case 'NotFoundError':
        return page(ctx, 400, renderDeviceCode({ action, xsrf, userCode: submitted, error: 'That code is not right. Check the code your device shows and try again.' }));
      case 'ExpiredError':
        return page(ctx, 400, renderMessage('This code has expired', 'Start the sign-in on your device again: it will show a new code.'));
      case 'AlreadyUsedError':
      case AlreadyAnswered.name:
        return page(ctx, 400, renderMessage('This code was already used', 'Start the sign-in on your device again: it will show a new code.'));
      case 'AbortedError':
        return page(ctx, 200, renderMessage('Access denied', 'The device is not signed in. You can close this window.'));
      default: {
        const status = (err as { status?: number } | undefined)?.status ?? 500;
        if (status >= 500) logger.error({ err, request_id: ctx.state.requestId }, 'device verification error');
        return page(ctx, status, renderErrorPage((out ?? {}) as Record<string, string | undefined>));
      }
    }
  };
}

/** The device flow's options: user codes `XXXX-XXXX` of 20 consonants (about 34 bits), our pages. */
export function deviceFlow(logger: Logger): DeviceFlowOptions {
  return {
    enabled: true,
    charset: 'base-20',
    mask: '****-****',
    deviceInfo: (ctx) => ({ ip: ctx.ip, ua: (ctx.get('user-agent') || '').slice(0, MAX_USER_AGENT) }),
    userCodeInputSource: userCodeInputSource(logger),
    userCodeConfirmSource(ctx, form, client, deviceInfo, userCode) {
      const { action, xsrf } = formParts(form);
      const code = (ctx as KoaContextWithOIDC).oidc.entities.DeviceCode as { params?: { scope?: unknown } } | undefined;
      const scope = typeof code?.params?.scope === 'string' ? code.params.scope : '';
      const info = deviceInfo as { ip?: string; ua?: string };
      page(
        ctx,
        200,
        renderDeviceConfirm({
          action,
          xsrf,
          userCode,
          clientName: client.clientName ?? client.clientId,
          scopes: scope.split(' ').filter(Boolean),
          deviceAddress: info.ip ?? 'unknown',
          deviceUserAgent: info.ua,
        }),
      );
    },
    successSource(ctx) {
      const name = (ctx as KoaContextWithOIDC).oidc.client?.clientName ?? 'The device';
      page(ctx, 200, renderMessage('Device signed in', `${name} is signed in. You can close this window and go back to your device.`));
    },
  };
}

/**
 * What Slipway adds to the device flow inside the provider:
 * - device codes expire on the server's clock (./internals.ts `deviceCodeExpiryOn`), so tests move it;
 * - a code is answered once (Allow or Deny on the verification page): a claim (./internals.ts
 *   `beforeDeviceCodeSaved`), so of answers at once on any instances one goes on, the others see the
 *   page of a used code;
 * - the device authorization response names the interval (RFC 8628 §3.2), and a poll that would be
 *   answered `authorization_pending` less than that interval after the last such answer is told
 *   `slow_down` instead (§3.5): the last pending answer holds a lease for the interval
 *   (repositories/deviceCodeLeases.ts), so on every instance at once one poll per interval gets through.
 *   An approved code is redeemed at the first poll, however soon (it is still claimed once).
 */
export function installDeviceFlow(provider: Provider, repos: Pick<ProviderStorage, 'deviceCodeLeases'>, clock: Clock): void {
  deviceCodeExpiryOn(provider, () => Math.floor(clock.now() / 1000));
  // oidc-provider refuses a code answered before by reading it: of answers at once, each would go on
  // (and the last sign-in would win). The answer is a claim: one Allow or Deny per code, on every instance.
  beforeDeviceCodeSaved(provider, async (code) => {
    const ctx = currentRequest();
    if (ctx?.oidc?.route !== 'code_verification' || ctx.state.deviceCodeAnswered) return;
    if (!(await repos.deviceCodeLeases.tryClaim(`answer:${sha256Hex(code.jti)}`, DEVICE_CODE_TTL_SECONDS * 1000, clock.date()))) throw new AlreadyAnswered();
    ctx.state.deviceCodeAnswered = true;
  });
  provider.use(async (ctx, next) => {
    await next();
    const { oidc } = ctx as KoaContextWithOIDC;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!oidc || !body || typeof body !== 'object') return;
    if (oidc.route === 'device_authorization' && ctx.status === 200) body.interval = DEVICE_POLL_INTERVAL_SECONDS;
    if (oidc.route !== 'token' || ctx.status !== 400 || body.error !== 'authorization_pending') return;
    const deviceCode = oidc.params?.device_code;
    if (typeof deviceCode !== 'string') return;
    const polled = await repos.deviceCodeLeases.claimOrTakeOver(`poll:${sha256Hex(deviceCode)}`, DEVICE_POLL_INTERVAL_SECONDS * 1000, clock.date());
    if (!polled) ctx.body = { error: 'slow_down', error_description: `poll at most every ${DEVICE_POLL_INTERVAL_SECONDS} seconds, and ${DEVICE_POLL_INTERVAL_SECONDS} more after each slow_down` };
  });
}
