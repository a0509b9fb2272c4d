import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/hash.ts';
import { collectionName, createAdapterClass, storedArtifact } from '../../src/repositories/oidc/index.ts';
import { openUnder, recordOf, sealUnder } from '../../src/repositories/oidc/sealing.ts';
import { useTestDatabase } from '../support/fixtures.ts';
import { keyDerivations } from '../../src/keys/secretBox.ts';

/*
 * The sealed format of authorization server artifacts goes through the secret box now; what the code
 * before that wrote (its own AES-GCM + HKDF, copied verbatim below) must still open, and what the new
 * code writes must open with the old code (an older instance beside a newer one during an upgrade).
 */
const oldKeyFor = (purpose: string, secret: string) => Buffer.from(hkdfSync('sha256', secret, '', `slipway oidc ${purpose}`, 32));

function oldSeal(purpose: string, secret: string, aad: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', oldKeyFor(purpose, secret), iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function oldOpen(purpose: string, secret: string, aad: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', oldKeyFor(purpose, secret), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Stored forms written by the code before this change (a session with its uid, a device code with its user code). */
const WRITTEN_BEFORE = {
  session: {
    id: 'id-of-a-session-0001',
    uid: 'uid-of-a-session-0001',
    _id: 'a9f8479a8c5ddd9e41c6411157c810794cab22e35f91ba831b6a496ec4770182',
    sealed:
      '1RwlIhbEC4ZRKW05xR_c7evQj5KG-TQF_mB2hTXrTfEBLFvWJu6wUnaXS-SWquNIS4-3OVbeIWlfw6ijmfoyu1ZKf1ZoB-hNGxAzFi-YMBUNt9KeXBC8kAGsDeSXnX5WSvVuPDMXr1J7xVat5ec0A8i6JW-sBdfkJcO7Sxo',
    uid_sealed: 'EbmraRDOmjqwyG6fCdu1vlFc3qtGYL0bIoRv8F3hQHam5HRNTZt14M5GiqLaHm_N',
  },
  deviceCode: {
    id: 'device-code-0001',
    userCode: 'ABCD-EFGH',
    _id: '2ef99dd36986b25f94f0e209995847f7865a669970325bfe7f503204a294f0f5',
    sealed:
      'RZc_TsKmB2UXOl7R7jTkqA_zuYmk6AlVil33lwjt3Pi74O7LvcyZWDycTlC-3Fv9x2z6m7RmbqUB7FJ5VSBK2fxlY8e52ANFZccSnVcoh0sTPLdCwJwT5YWQ1Obg7qv_lYlvNqD_JnvpxVwpy5ViX4iVGgX6',
    user_code_sealed: 'IGXLp6Etneb8MsEtfTRqXThI6uRUXMk2FwEsc-Q4d3_I1NXayXSbwOIu-Ws',
  },
};

describe('sealing of authorization server artifacts', () => {
  it('opens what the old code sealed, and the old code opens what it seals', () => {
    for (const purpose of ['payload', 'uid', 'user_code'] as const) {
      const id = randomBytes(24).toString('base64url');
      const record = recordOf('RefreshToken', sha256Hex(id));
      const text = JSON.stringify({ jti: id, purpose, resources: { 'https://api.example.com/v1': 'read' } });
      expect(openUnder(purpose, id, record, oldSeal(purpose, id, record, text))).toBe(text);
      expect(oldOpen(purpose, id, record, sealUnder(purpose, id, record, text))).toBe(text);
      // Same layout, byte for byte: 12-byte IV, 16-byte tag, then as many ciphertext bytes as the text.
      expect(Buffer.from(sealUnder(purpose, id, record, text), 'base64url').length).toBe(12 + 16 + Buffer.byteLength(text));
    }
  });

  it('does not open under another id, another record, another purpose, or tampered with', () => {
    const id = randomBytes(24).toString('base64url');
    const record = recordOf('AuthorizationCode', sha256Hex(id));
    const sealed = sealUnder('payload', id, record, 'secret payload');
    expect(openUnder('payload', `${id}x`, record, sealed)).toBeUndefined();
    expect(openUnder('payload', id, recordOf('RefreshToken', sha256Hex(id)), sealed)).toBeUndefined();
    expect(openUnder('uid', id, record, sealed)).toBeUndefined();
    const flipped = Buffer.from(sealed, 'base64url');
    flipped[flipped.length - 1]! ^= 1;
    expect(openUnder('payload', id, record, flipped.toString('base64url'))).toBeUndefined();
    expect(openUnder('payload', id, record, 'short')).toBeUndefined();
  });

  it('derives each id\'s key once: sealing, then opening again and again, derives one key; a held key opens under no other id', () => {
    const id = randomBytes(24).toString('base64url');
    const other = randomBytes(24).toString('base64url');
    const record = recordOf('RefreshToken', sha256Hex(id));
    const before = keyDerivations();
    const sealed = sealUnder('payload', id, record, '{"jti":"x"}');
    for (let i = 0; i < 5; i += 1) expect(openUnder('payload', id, record, sealed)).toBe('{"jti":"x"}');
    expect(keyDerivations() - before).toBe(1);
    // Another id (its own key, derived now), the held key for another purpose: neither opens it.
    expect(openUnder('payload', other, record, sealed)).toBeUndefined();
    expect(openUnder('uid', id, record, sealed)).toBeUndefined();
    expect(keyDerivations() - before).toBe(3);
    // What was sealed with a held key is the old format still.
    expect(oldOpen('payload', id, record, sealUnder('payload', id, record, 'again'))).toBe('again');
  });

  it('the stored form of the new code matches the old one field for field', () => {
    const { session } = WRITTEN_BEFORE;
    const doc = storedArtifact('Session', session.id, { jti: session.id, uid: session.uid, accountId: 'usr_1', kind: 'Session' }, null);
    expect(doc._id).toBe(session._id);
    expect(doc.uid).toBe(sha256Hex(session.uid));
    expect(Object.keys(doc).sort()).toEqual(['_id', 'account_id', 'expires_at', 'sealed', 'uid', 'uid_sealed']);
    expect(oldOpen('uid', session.uid, `Session:${session._id}`, doc.uid_sealed!)).toBe(session.id);
  });
});

describe('artifacts stored by the code before the secret box sealed them', () => {
  const database = useTestDatabase();
  let Adapter: ReturnType<typeof createAdapterClass>;
  beforeAll(async () => {
    Adapter = createAdapterClass(database.db, database.repos.oauthClients);
    const { session, deviceCode } = WRITTEN_BEFORE;
    await database.db.collection(collectionName('Session')).insertOne({
      _id: session._id as never,
      sealed: session.sealed,
      uid: sha256Hex(session.uid),
      uid_sealed: session.uid_sealed,
      account_id: 'usr_1',
      expires_at: null,
    });
    await database.db.collection(collectionName('DeviceCode')).insertOne({
      _id: deviceCode._id as never,
      sealed: deviceCode.sealed,
      grant_id: 'grant-1',
      user_code: sha256Hex(deviceCode.userCode),
      user_code_sealed: deviceCode.user_code_sealed,
      expires_at: null,
    });
  });

  it('are found by id, by session uid and by user code, and open', async () => {
    const { session, deviceCode } = WRITTEN_BEFORE;
    const sessions = new Adapter('Session');
    expect(await sessions.find(session.id)).toEqual({ jti: session.id, uid: session.uid, accountId: 'usr_1', kind: 'Session' });
    expect(await sessions.findByUid!(session.uid)).toEqual({ jti: session.id, uid: session.uid, accountId: 'usr_1', kind: 'Session' });
    expect(await sessions.find('id-of-another-session')).toBeUndefined();
    const codes = new Adapter('DeviceCode');
    expect(await codes.findByUserCode!(deviceCode.userCode)).toEqual({ jti: deviceCode.id, userCode: deviceCode.userCode, grantId: 'grant-1', kind: 'DeviceCode' });
    expect(await codes.findByUserCode!('WXYZ-WXYZ')).toBeUndefined();
  });
});
