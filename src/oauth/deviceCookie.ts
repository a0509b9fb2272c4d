import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

const DEVICE_COOKIE = 'slipway_device';
const DEVICE_PATH = '/oauth/interaction';
/** How long a browser stays known to a user after signing them in. */
const DEVICE_MAX_AGE_MS = 180 * 24 * 3600 * 1000;

export interface Device {
  userId: string;
  /** Random, 128 bits: the budget this browser's attempts at that user are counted in. */
  deviceId: string;
}

const options = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: DEVICE_PATH, signed: true, overwrite: true });

/**
 * A device cookie (the OWASP Authentication Cheat Sheet's defence against lockout): after a successful
 * sign-in the browser gets a cookie binding (user, random id), signed with the cookie keys (keys/) and
 * readable by the login page only. A later attempt at that user carrying it is counted in the device's
 * own budget rather than the per-e-mail one, so attempts from elsewhere cannot lock that browser out.
 */
export function readDevice(ctx: Context): Device | undefined {
  const raw = ctx.cookies.get(DEVICE_COOKIE, { signed: true });
  const match = raw ? /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{22})$/.exec(raw) : null;
  return match ? { userId: match[1]!, deviceId: match[2]! } : undefined;
}

/** Remembers this browser for `userId` (keeping its id when it already was), for DEVICE_MAX_AGE_MS. */
export function rememberDevice(ctx: Context, userId: string, known: Device | undefined): void {
  const deviceId = known?.userId === userId ? known.deviceId : randomBytes(16).toString('base64url');
  ctx.cookies.set(DEVICE_COOKIE, `${userId}.${deviceId}`, { ...options(ctx.secure), maxAge: DEVICE_MAX_AGE_MS });
}
