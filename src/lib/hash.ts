import { hash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a UTF-8 string, hex: how tokens, keys and secrets are stored and looked up. */
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/**
 * Whether `presented` is the secret `expected` (a CSRF token, say), compared in constant time. Nothing
 * expected, or anything but a string presented, never matches.
 */
export function sameSecret(expected: string | undefined, presented: unknown): boolean {
  if (!expected || typeof presented !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
