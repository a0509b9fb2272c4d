import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Every kind of id the service mints, and its prefix: written here once. Services and repositories mint
 * with `newId(kind)`; the /v1 routes reserve ids for Idempotency-Key with the same function.
 */
export const ID_PREFIX = {
  project: 'proj',
  deployment: 'dep',
  configuration: 'cfg',
  user: 'usr',
  identity: 'idn',
  account: 'acct',
  apiKey: 'key',
  webhook: 'whk',
  event: 'evt',
  delivery: 'dlv',
  oauthClient: 'cli',
  trustPolicy: 'tp',
  environment: 'env',
  review: 'rev',
  logBatch: 'logb',
} as const;

export type IdKind = keyof typeof ID_PREFIX;
/** The prefixes themselves (`proj`, `dep`, …), as help texts and checks of written ids name them. */
export type IdPrefix = (typeof ID_PREFIX)[IdKind];
export const ID_PREFIXES: readonly IdPrefix[] = Object.values(ID_PREFIX);

/** `prefix_` + 10 chars of millisecond time + 16 chars of randomness (80 bits), Crockford base32 lower case. */
function sortableId(prefix: string, now: number): string {
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

/** `length` uniformly random base62 characters (bytes of 248 and above are drawn again, so none is likelier). */
function base62(length: number): string {
  let out = '';
  while (out.length < length) for (const byte of randomBytes(length)) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  return out;
}

/**
 * A new id of the kind: `prefix_` + a time part + randomness, URL-safe and sortable by creation time.
 * OAuth client ids are the exception: `cli_` + 20 base62 characters (about 119 bits), a `client_id`
 * that tells nothing of when the client was registered.
 */
export function newId(kind: IdKind, now = Date.now()): string {
  if (kind === 'oauthClient') return `${ID_PREFIX.oauthClient}_${base62(20)}`;
  return sortableId(ID_PREFIX[kind], now);
}

/**
 * The smallest id `newId(kind, at)` can make: every id minted at or after `at` sorts at or above it
 * (ids sort by their time part first), so `{ _id: { $gte: idFloor(kind, at) } }` selects by creation
 * time on the `_id` index.
 */
export function idFloor(kind: Exclude<IdKind, 'oauthClient'>, at: number): string {
  const prefix = ID_PREFIX[kind];
  return sortableId(prefix, at).slice(0, prefix.length + 1 + 10);
}
