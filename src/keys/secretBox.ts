import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
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
const RELOAD_EVERY_MS = 5_000;

function decodeKeys(data: DataKeys): { current: string; keys: Map<string, Buffer> } {
  const keys = new Map<string, Buffer>();
  for (const [kid, value] of Object.entries(data.keys ?? {})) {
    const key = Buffer.from(value, 'base64url');
    if (key.length !== 32) throw new Error(`data key ${kid} is not 32 bytes`);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(kid)) throw new Error(`data key id ${JSON.stringify(kid)} must be 1-64 URL-safe characters`);
    keys.set(kid, key);
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

  function keyFor(kid: string): Buffer {
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
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keyFor(kid), iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { alg: 'A256GCM', kid, iv: iv.toString('base64url'), tag: cipher.getAuthTag().toString('base64url'), ct: ct.toString('base64url') };
    },
    open(sealed, aad) {
      if (sealed.alg !== 'A256GCM') throw new Error(`unsupported algorithm ${String(sealed.alg)}`);
      const iv = Buffer.from(sealed.iv, 'base64url');
      const tag = Buffer.from(sealed.tag, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== 16) throw new Error('malformed sealed value');
      const decipher = createDecipheriv('aes-256-gcm', keyFor(sealed.kid), iv, { authTagLength: 16 });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
