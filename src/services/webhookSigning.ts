import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]` (docs/product.md §7), in the
 * scheme Stripe uses: the key is the whole `whsec_…` string; while a rotated-out secret still signs,
 * there is one `v1` per secret.
 */

export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function sign(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${sign(s, timestamp, body)}`)].join(',');
}

/**
 * The receiver's check, as docs/api.md shows it: some `v1` matches (constant-time) and `t` is within
 * `toleranceSeconds` of now.
 */
export function verifySignature(header: string, secret: string, body: string, toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, t, body), 'hex');
  return parts
    .filter(([k, v]) => k === 'v1' && v && /^[0-9a-f]{64}$/.test(v))
    .some(([, v]) => timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}
