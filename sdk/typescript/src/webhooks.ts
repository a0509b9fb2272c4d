import { SlipwayError } from './errors.js';
import type { WebhookPayload } from './types.js';

/** A delivery whose `Slipway-Signature` does not verify (wrong secret, altered body, too old, missing). */
export class WebhookSignatureError extends SlipwayError {
  constructor(message: string) {
    super({ code: 'invalid_signature', status: null, message });
  }
}

export interface VerifyWebhookOptions {
  /** The raw request body exactly as received (not re-serialised JSON). */
  payload: string | Uint8Array;
  /** The `Slipway-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]`. */
  header: string | null | undefined;
  /** The endpoint's signing secret (`whsec_…`, the whole string is the key). */
  secret: string;
  /** How far `t` may be from now (replay protection). Default 300 s. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (for tests). */
  now?: number;
}

const encoder = new TextEncoder();

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/**
 * Verifies a webhook delivery's `Slipway-Signature` (Web Crypto, so it runs in Node ≥ 20, edge
 * runtimes and browsers): true when some `v1` (there are two for 24 h after a secret rotation) is the
 * HMAC-SHA256 of `"<t>.<payload>"` keyed with `secret`, compared in constant time, and `t` is recent.
 */
export async function verifyWebhookSignature(options: VerifyWebhookOptions): Promise<boolean> {
  const { header, secret } = options;
  if (!header || !secret) return false;
  const parts = header.split(',').map((p) => {
    const eq = p.indexOf('=');
    return [p.slice(0, eq).trim(), p.slice(eq + 1).trim()] as const;
  });
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || !/^\d+$/.test(t)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(t)) > (options.toleranceSeconds ?? 300)) return false;
  const candidates = parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v);
  if (candidates.length === 0) return false;

  const body = typeof options.payload === 'string' ? encoder.encode(options.payload) : options.payload;
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  for (const candidate of candidates) {
    // subtle.verify compares in constant time.
    if (await globalThis.crypto.subtle.verify('HMAC', key, hexToBytes(candidate), signed)) return true;
  }
  return false;
}

/**
 * Verifies the delivery (see `verifyWebhookSignature`) and returns its parsed JSON body, typed as
 * `WebhookPayload` (`id`, `type`, `actor`, `project_id`, `data`, `created_at`); throws
 * WebhookSignatureError when the signature does not verify. The body is not checked against the type
 * at run time: the signature is what proves Slipway sent it.
 */
export async function constructWebhookEvent<T = WebhookPayload>(options: VerifyWebhookOptions): Promise<T> {
  if (!(await verifyWebhookSignature(options))) throw new WebhookSignatureError('The Slipway-Signature header does not match this payload and secret, or is too old.');
  const text = typeof options.payload === 'string' ? options.payload : new TextDecoder().decode(options.payload);
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new SlipwayError({ code: 'invalid_response', status: null, message: 'The webhook delivery is signed but its body is not JSON.', cause: err });
  }
}
