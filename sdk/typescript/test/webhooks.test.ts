import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebhookSignatureError, constructWebhookEvent, verifyWebhookSignature } from '../src/index.ts';

// Signed the way PRODUCT §7 and the server's webhook signer define it, with Node's own HMAC.
const secret = `whsec_${randomBytes(32).toString('base64url')}`;
const sign = (key: string, t: number, body: string) => createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex');
const now = Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: 'evt_1', type: 'deployment.status_changed', data: { status: 'succeeded', note: 'déployé ✓' } });

describe('webhook signature verification (Slipway-Signature: t=…,v1=…)', () => {
  it('accepts the right signature, as a string or as raw bytes, and during a rotation either secret', async () => {
    const header = `t=${now},v1=${sign(secret, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header, secret })).toBe(true);
    expect(await verifyWebhookSignature({ payload: new TextEncoder().encode(body), header, secret })).toBe(true);
    const previous = `whsec_${randomBytes(32).toString('base64url')}`;
    const rotating = `t=${now},v1=${sign(secret, now, body)},v1=${sign(previous, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header: rotating, secret: previous })).toBe(true);
    expect(await constructWebhookEvent({ payload: body, header, secret })).toEqual(JSON.parse(body));
  });

  it('refuses a wrong secret, an altered body, an old or future timestamp, and a missing or malformed header', async () => {
    const header = `t=${now},v1=${sign(secret, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header, secret: `${secret}x` })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body.replace('succeeded', 'failed'), header, secret })).toBe(false);
    const old = now - 301;
    expect(await verifyWebhookSignature({ payload: body, header: `t=${old},v1=${sign(secret, old, body)}`, secret })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header: `t=${old},v1=${sign(secret, old, body)}`, secret, toleranceSeconds: 600 })).toBe(true);
    const future = now + 301;
    expect(await verifyWebhookSignature({ payload: body, header: `t=${future},v1=${sign(secret, future, body)}`, secret })).toBe(false);
    // The timestamp is signed: moving it invalidates the signature.
    expect(await verifyWebhookSignature({ payload: body, header: `t=${now + 1},v1=${sign(secret, now, body)}`, secret })).toBe(false);
    for (const bad of [undefined, null, '', `v1=${sign(secret, now, body)}`, `t=${now}`, `t=${now},v1=zz`, `t=abc,v1=${sign(secret, now, body)}`]) {
      expect(await verifyWebhookSignature({ payload: body, header: bad, secret }), String(bad)).toBe(false);
    }
    await expect(constructWebhookEvent({ payload: body, header: `t=${now},v1=${'0'.repeat(64)}`, secret })).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});
