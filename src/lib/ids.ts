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

/**
 * The smallest id `newId(prefix, at)` can make: every id minted at or after `at` sorts at or above it
 * (ids sort by their time part first), so `{ _id: { $gte: idFloor(prefix, at) } }` selects by creation time
 * on the `_id` index.
 */
export function idFloor(prefix: IdPrefix, at: number): string {
  return newId(prefix, at).slice(0, prefix.length + 1 + 10);
}
