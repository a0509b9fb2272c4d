import { createCipheriv, createDecipheriv, createSecretKey, hash, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KEY_FILES, type KeyMaterial } from './keystore.ts';

export type DataKeys = KeyMaterial['data'];

/**
 * A value encrypted at rest: AES-256-GCM under data key `kid`, base64url parts. Stored as a
 * subdocument, so a query can find every value still under an old key.
 */
export interface SealedValue {
  alg: 'A256GCM';
  kid: string;
  iv: string;
  tag: string;
  ct: string;
}

/** The value names a data key this process does not have (not even after re-reading `keys/`). */
export class UnknownDataKeyError extends Error {
  readonly kid: string;
  constructor(kid: string) {
    super(`unknown data key ${kid}`);
    this.name = 'UnknownDataKeyError';
    this.kid = kid;
  }
}

export interface SecretBox {
  /** The key new values are sealed with. */
  readonly currentKeyId: string;
  /**
   * `aad` names the record the value belongs to; opening with another record's `aad` fails, so a
   * ciphertext copied between records is refused.
   */
  seal(plaintext: string, aad: string): SealedValue;
  /** Throws when the value was tampered with, moved to another record, or its key is unknown. */
  open(sealed: SealedValue, aad: string): string;
}

export interface SecretBoxOptions {
  /**
   * Re-reads the data keys when a value names a key this process has not seen: another instance may
   * have started after `slipway keys rotate-data` and sealed with the new key. Called at most every
   * few seconds.
   */
  reload?: () => DataKeys;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const RELOAD_EVERY_MS = 5_000;

interface Ciphertext {
  iv: Buffer;
  tag: Buffer;
  ct: Buffer;
}

/**
 * AES-256-GCM with a fresh IV, `aad` bound: the one cipher of every value sealed at rest. Keys are held
 * as KeyObjects: a cipher made from a raw Buffer key costs four times as much (Node 24: about 20 µs
 * against 5 µs a value).
 */
function encrypt(key: KeyObject, plaintext: string, aad: string): Ciphertext {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ct };
}

/** Throws when the tag does not match (tampered, another key, another `aad`). */
function decrypt(key: KeyObject, { iv, tag, ct }: Ciphertext, aad: string): string {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
}

let derivations = 0;

/** A 256-bit key derived from `secret` for one purpose (HKDF-SHA-256, empty salt, `info` names the purpose). */
function keyFrom(secret: string, info: string): KeyObject {
  derivations += 1;
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, '', info, 32)));
}

/** How many keys this process has derived from secrets (sealWithKeyFrom, openWithKeyFrom): tests count them per request. */
export const keyDerivations = () => derivations;

/**
 * Keys derived from secrets, each derived once and then held for a while: the same key serves every
 * seal and open under one secret (an artifact saved, then read on each presentation), and a derivation
 * costs as much as the sealing itself. Held by the SHA-256 of the secret and the purpose, never the
 * secret, at most `max` of them for at most `ttlMs` (the process holds what opens records it handled
 * recently, as it held the secrets themselves while handling them). Nothing about the stored format
 * changes: a key is the same whether it was derived now or earlier.
 */
export class DerivedKeys {
  readonly #keys: LRUCache<string, KeyObject>;
  constructor(max: number, ttlMs: number) {
    this.#keys = new LRUCache<string, KeyObject>({ max, ttl: ttlMs });
  }

  for(secret: string, info: string): KeyObject {
    const name = `${info}\0${hash('sha256', secret, 'base64url')}`;
    let key = this.#keys.get(name);
    if (!key) {
      key = keyFrom(secret, info);
      this.#keys.set(name, key);
    }
    return key;
  }
}

const derive = (secret: string, info: string, keys?: DerivedKeys) => (keys ? keys.for(secret, info) : keyFrom(secret, info));

/**
 * Seals `plaintext` under a key derived from `secret` itself rather than a data key: only whoever
 * presents the secret (an authorization server artifact's id, which the database never holds) can open
 * it. `info` names the purpose, `aad` the record. base64url(iv ‖ tag ‖ ciphertext), a string. With
 * `keys`, the key is derived once per secret (DerivedKeys).
 */
export function sealWithKeyFrom(secret: string, info: string, aad: string, plaintext: string, keys?: DerivedKeys): string {
  const { iv, tag, ct } = encrypt(derive(secret, info, keys), plaintext, aad);
  return Buffer.concat([iv, tag, ct]).toString('base64url');
}

/** Opens what sealWithKeyFrom sealed with the same secret, `info` and `aad`; undefined when it does not open. */
export function openWithKeyFrom(secret: string, info: string, aad: string, sealed: string, keys?: DerivedKeys): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const parts = { iv: raw.subarray(0, IV_BYTES), tag: raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES), ct: raw.subarray(IV_BYTES + TAG_BYTES) };
    return decrypt(derive(secret, info, keys), parts, aad);
  } catch {
    return undefined;
  }
}

function decodeKeys(data: DataKeys): { current: string; keys: Map<string, KeyObject> } {
  const keys = new Map<string, KeyObject>();
  for (const [kid, value] of Object.entries(data.keys ?? {})) {
    const key = Buffer.from(value, 'base64url');
    if (key.length !== 32) throw new Error(`data key ${kid} is not 32 bytes`);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(kid)) throw new Error(`data key id ${JSON.stringify(kid)} must be 1-64 URL-safe characters`);
    keys.set(kid, createSecretKey(key));
  }
  if (!keys.has(data.current)) throw new Error(`the current data key ${data.current} is missing`);
  return { current: data.current, keys };
}

/** Reads `data-keys.json` (for `SecretBoxOptions.reload`). */
export function readDataKeysSync(keysDir: string): DataKeys {
  return JSON.parse(readFileSync(path.join(keysDir, KEY_FILES.data), 'utf8')) as DataKeys;
}

export function createSecretBox(data: DataKeys, options: SecretBoxOptions = {}): SecretBox {
  let state = decodeKeys(data);
  let lastReload = 0;

  function keyFor(kid: string): KeyObject {
    let key = state.keys.get(kid);
    if (!key && options.reload && Date.now() - lastReload > RELOAD_EVERY_MS) {
      lastReload = Date.now();
      state = decodeKeys(options.reload());
      key = state.keys.get(kid);
    }
    if (!key) throw new UnknownDataKeyError(kid);
    return key;
  }

  return {
    get currentKeyId() {
      return state.current;
    },
    seal(plaintext, aad) {
      const kid = state.current;
      const { iv, tag, ct } = encrypt(keyFor(kid), plaintext, aad);
      return { alg: 'A256GCM', kid, iv: iv.toString('base64url'), tag: tag.toString('base64url'), ct: ct.toString('base64url') };
    },
    open(sealed, aad) {
      if (sealed.alg !== 'A256GCM') throw new Error(`unsupported algorithm ${String(sealed.alg)}`);
      const parts = { iv: Buffer.from(sealed.iv, 'base64url'), tag: Buffer.from(sealed.tag, 'base64url'), ct: Buffer.from(sealed.ct, 'base64url') };
      if (parts.iv.length !== IV_BYTES || parts.tag.length !== TAG_BYTES) throw new Error('malformed sealed value');
      return decrypt(keyFor(sealed.kid), parts, aad);
    },
  };
}
