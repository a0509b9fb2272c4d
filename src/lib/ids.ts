import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = ['proj', 'dep', 'cfg', 'usr', 'acct', 'key', 'whk', 'evt', 'cli', 'dlv'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/**
 * `prefix_` + 10 chars of millisecond time + 16 chars of randomness (80 bits), Crockford base32 lower
 * case: URL-safe and sortable by creation time.
 */
export function newId(prefix: IdPrefix, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32];
  return `${prefix}_${time}${rand}`;
}
