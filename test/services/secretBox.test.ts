import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, UnknownDataKeyError, type DataKeys } from '../../src/keys/secretBox.ts';

const key = () => randomBytes(32).toString('base64url');

describe('secret box', () => {
  const data: DataKeys = { current: 'dk_a', keys: { dk_a: key() } };

  it('seals with the current key and opens with the same record binding', () => {
    const box = createSecretBox(data);
    const sealed = box.seal('postgres://user:hunter2@db/app', 'configuration:cfg_1:DATABASE_URL');
    expect(sealed.kid).toBe('dk_a');
    expect(sealed.alg).toBe('A256GCM');
    expect(JSON.stringify(sealed)).not.toContain('hunter2');
    expect(box.open(sealed, 'configuration:cfg_1:DATABASE_URL')).toBe('postgres://user:hunter2@db/app');
    // A fresh IV every time: equal plaintexts do not give equal ciphertexts.
    expect(box.seal('same', 'aad').ct).not.toBe(box.seal('same', 'aad').ct);
  });

  it('refuses a value moved to another record, or tampered with', () => {
    const box = createSecretBox(data);
    const sealed = box.seal('s3cret', 'configuration:cfg_1:TOKEN');
    expect(() => box.open(sealed, 'configuration:cfg_2:TOKEN')).toThrow();
    const flipped = Buffer.from(sealed.ct, 'base64url');
    flipped[0]! ^= 1;
    expect(() => box.open({ ...sealed, ct: flipped.toString('base64url') }, 'configuration:cfg_1:TOKEN')).toThrow();
  });

  it('opens values under older keys after rotation and re-reads keys it does not know yet', () => {
    const old = createSecretBox(data);
    const sealedOld = old.seal('v1', 'r');
    const rotated: DataKeys = { current: 'dk_b', keys: { ...data.keys, dk_b: key() } };
    const fresh = createSecretBox(rotated);
    expect(fresh.open(sealedOld, 'r')).toBe('v1');
    const sealedNew = fresh.seal('v2', 'r');
    expect(sealedNew.kid).toBe('dk_b');
    // An instance started before the rotation: without reload it cannot read the new key's values…
    expect(() => old.open(sealedNew, 'r')).toThrow(UnknownDataKeyError);
    // …with reload it picks the new keys up from keys/ and from then on seals with the new current key.
    const reloading = createSecretBox(data, { reload: () => rotated });
    expect(reloading.currentKeyId).toBe('dk_a');
    expect(reloading.open(sealedNew, 'r')).toBe('v2');
    expect(reloading.currentKeyId).toBe('dk_b');
  });

  it('refuses key material that is not 32 bytes or lacks the current key', () => {
    expect(() => createSecretBox({ current: 'dk_a', keys: { dk_a: randomBytes(16).toString('base64url') } })).toThrow(/32 bytes/);
    expect(() => createSecretBox({ current: 'dk_x', keys: { dk_a: key() } })).toThrow(/missing/);
  });
});
