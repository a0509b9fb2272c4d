import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256Hex } from './hash.ts';

/**
 * API keys (docs/product.md §2): `slw_` + 32 base62 characters of randomness (~190 bits) + a 6-character
 * base62 CRC32 of those 32 characters. The checksum lets a typo or a token of another kind be refused
 * without touching the database, and lets secret scanners recognise a real key.
 */
export const API_KEY_PREFIX = 'slw_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = /^slw_[0-9A-Za-z]{38}$/;

/** CRC32 (< 62^6) as exactly six base62 digits, zero-padded. */
export function apiKeyChecksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: dropping bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): string {
  const body = randomBase62(BODY_LENGTH);
  return `${API_KEY_PREFIX}${body}${apiKeyChecksum(body)}`;
}

/** Prefix, length, alphabet and checksum: everything that can be checked without a lookup. */
export function looksLikeApiKey(token: unknown): token is string {
  if (typeof token !== 'string' || token.length !== API_KEY_LENGTH || !SHAPE.test(token)) return false;
  const body = token.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  return token.slice(API_KEY_PREFIX.length + BODY_LENGTH) === apiKeyChecksum(body);
}

/** What is stored and looked up: SHA-256 (hex) of the whole key. The key itself is never stored. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** Shown in lists so people can tell keys apart: `slw_AbCd` and the last four characters. */
export function apiKeyHints(key: string): { prefix: string; last_four: string } {
  return { prefix: key.slice(0, 8), last_four: key.slice(-4) };
}
