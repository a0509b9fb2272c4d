import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

/** What lives in `keys/`: generated on first start, never committed, rotatable without downtime. */
export interface KeyMaterial {
  /** Private signing JWKS; the first key signs, every key verifies. */
  signing: { keys: JWK[] };
  /** Cookie signing secrets; the first signs, every one verifies. */
  cookies: string[];
  /** AES-256-GCM data keys by id, and the id of the one that encrypts new values. */
  data: { current: string; keys: Record<string, string> };
}

export const KEY_FILES = {
  signing: 'signing-keys.json',
  cookies: 'cookie-keys.json',
  data: 'data-keys.json',
} as const;

const SIGNING_ALG = 'RS256';

export async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' };
}

const newSecret = () => randomBytes(32).toString('base64url');
const newDataKeyId = () => `dk_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

async function writeAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

/** `keys/` cannot be read or written, or holds something that is not key material (KEYS_DIR). */
export class KeyMaterialError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeyMaterialError';
  }
}

async function readJson<T>(file: string): Promise<T> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (err) {
    throw new KeyMaterialError(`could not read ${file}: ${(err as Error).message}`, { cause: err });
  }
}

function validate(keys: KeyMaterial, dir: string): void {
  const problems: string[] = [];
  if (!Array.isArray(keys.signing?.keys) || keys.signing.keys.length === 0) problems.push(`${KEY_FILES.signing}: no keys`);
  else if (keys.signing.keys.some((k) => !k.kid || !k.d)) problems.push(`${KEY_FILES.signing}: every key needs kid and private part`);
  if (!Array.isArray(keys.cookies) || keys.cookies.length === 0 || keys.cookies.some((c) => typeof c !== 'string' || c.length < 32))
    problems.push(`${KEY_FILES.cookies}: needs a non-empty array of secrets of 32+ characters`);
  const current = keys.data?.keys?.[keys.data?.current];
  if (!current || Buffer.from(current, 'base64url').length !== 32) problems.push(`${KEY_FILES.data}: the current key must be 32 bytes (base64url)`);
  if (problems.length) throw new KeyMaterialError(`invalid key material in ${dir}: ${problems.join('; ')}`);
}

/** Loads `keys/`, creating whatever file is missing. */
export async function loadOrCreateKeys(dir: string): Promise<KeyMaterial & { created: string[] }> {
  try {
    return await loadOrCreate(dir);
  } catch (err) {
    if (err instanceof KeyMaterialError) throw err;
    throw new KeyMaterialError(`could not create the key material in ${dir}: ${(err as Error).message}`, { cause: err });
  }
}

async function loadOrCreate(dir: string): Promise<KeyMaterial & { created: string[] }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created: string[] = [];
  const file = (name: string) => path.join(dir, name);
  if (!existsSync(file(KEY_FILES.signing))) {
    await writeAtomic(file(KEY_FILES.signing), { keys: [await newSigningKey()] });
    created.push(KEY_FILES.signing);
  }
  if (!existsSync(file(KEY_FILES.cookies))) {
    await writeAtomic(file(KEY_FILES.cookies), [newSecret(), newSecret()]);
    created.push(KEY_FILES.cookies);
  }
  if (!existsSync(file(KEY_FILES.data))) {
    const id = newDataKeyId();
    await writeAtomic(file(KEY_FILES.data), { current: id, keys: { [id]: randomBytes(32).toString('base64url') } });
    created.push(KEY_FILES.data);
  }
  const keys: KeyMaterial = {
    signing: await readJson(file(KEY_FILES.signing)),
    cookies: await readJson(file(KEY_FILES.cookies)),
    data: await readJson(file(KEY_FILES.data)),
  };
  validate(keys, dir);
  return { ...keys, created };
}

/** Public half of the signing keys, for local verification of our own tokens. */
export function publicJwks(keys: KeyMaterial): { keys: JWK[] } {
  return {
    keys: keys.signing.keys.map(({ kty, n, e, crv, x, y, kid, alg, use }) =>
      Object.fromEntries(Object.entries({ kty, n, e, crv, x, y, kid, alg, use }).filter(([, v]) => v !== undefined)),
    ),
  };
}

/**
 * The 32-byte secret DPoP server nonces (RFC 9449 §8) are derived from: HKDF of the current cookie key,
 * so every instance with the same keys issues and accepts the same nonces, at the token endpoint and /v1.
 */
export function dpopNonceSecret(keys: KeyMaterial): Buffer {
  return Buffer.from(hkdfSync('sha256', keys.cookies[0]!, '', 'slipway dpop nonce', 32));
}

/** Adds a new signing key in front: it signs from the next start, older keys keep verifying. */
export async function rotateSigningKey(dir: string): Promise<{ kid: string; kids: string[] }> {
  const { signing } = await loadOrCreateKeys(dir);
  const key = await newSigningKey();
  const keys = [key, ...signing.keys];
  await writeAtomic(path.join(dir, KEY_FILES.signing), { keys });
  return { kid: key.kid!, kids: keys.map((k) => k.kid!) };
}

/** Removes an old signing key; the current signer cannot be retired. */
export async function retireSigningKey(dir: string, kid: string): Promise<{ kids: string[] }> {
  const { signing } = await loadOrCreateKeys(dir);
  const index = signing.keys.findIndex((k) => k.kid === kid);
  if (index === -1) throw new Error(`no signing key with kid ${kid}`);
  if (index === 0) throw new Error(`${kid} is the current signing key; rotate first, then retire it after an hour`);
  const keys = signing.keys.filter((k) => k.kid !== kid);
  await writeAtomic(path.join(dir, KEY_FILES.signing), { keys });
  return { kids: keys.map((k) => k.kid!) };
}

export async function rotateCookieKeys(dir: string): Promise<{ count: number }> {
  const { cookies } = await loadOrCreateKeys(dir);
  const next = [newSecret(), ...cookies].slice(0, 3);
  await writeAtomic(path.join(dir, KEY_FILES.cookies), next);
  return { count: next.length };
}

export async function rotateDataKey(dir: string): Promise<{ current: string; ids: string[] }> {
  const { data } = await loadOrCreateKeys(dir);
  const id = newDataKeyId();
  const next = { current: id, keys: { ...data.keys, [id]: randomBytes(32).toString('base64url') } };
  await writeAtomic(path.join(dir, KEY_FILES.data), next);
  return { current: id, ids: Object.keys(next.keys) };
}
