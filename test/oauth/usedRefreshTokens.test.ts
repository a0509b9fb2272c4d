import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { CONSUMED_REFRESH_TOKENS, collectionName } from '../../src/repositories/oidc/index.ts';
import { useApiServer } from '../support/fixtures.ts';
import type { TestUser } from '../support/tokens.ts';

/**
 * Used (rotated) refresh tokens stay in the live collection, marked used, until they expire: presenting
 * one again is detected as reuse and revokes the grant. A used token that an earlier version moved to
 * the consumed collection is still found there and detected the same way.
 */
const env = useApiServer({ overrides: { sweepIntervalSeconds: 3600, webhookPollIntervalMs: 60_000 } });
let owner: TestUser;

beforeAll(() => {
  ({ owner } = env);
});

const live = () => env.server.running.container.database.db.collection<{ _id: string }>(collectionName('RefreshToken'));
const consumed = () => env.server.running.container.database.db.collection<{ _id: string; sealed: string; consumed_at?: Date; grant_id?: string }>(CONSUMED_REFRESH_TOKENS);

async function rotatedPair() {
  const clientId = await env.tokens.publicClient(owner.accountId, true);
  const first = (await env.tokens.forUser(owner, 'read', { clientId, withRefresh: true })).refresh_token!;
  expect(first).toBeTruthy();
  const second = await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: first });
  expect(second.refresh_token).toBeTruthy();
  expect(second.refresh_token).not.toBe(first);
  return { clientId, first, second: second.refresh_token! };
}

type Stored = { _id: string; sealed: string; consumed_at?: Date; grant_id?: string };
const liveStored = () => env.server.running.container.database.db.collection<Stored>(collectionName('RefreshToken'));

const refused = (clientId: string, refreshToken: string) =>
  expect(tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: refreshToken })).rejects.toMatchObject({
    status: 400,
    message: expect.stringContaining('invalid_grant'),
  });

describe('used refresh tokens', () => {
  it('stay in the live collection, marked used, hashed and sealed as before; nothing goes to the consumed collection', async () => {
    const { first, second } = await rotatedPair();
    const used = (await liveStored().findOne({ _id: sha256Hex(first) }))!;
    expect(used).not.toBeNull();
    expect(used.consumed_at).toBeInstanceOf(Date);
    expect(used.sealed).toBeTruthy();
    expect(JSON.stringify(used)).not.toContain(first);
    expect((await liveStored().findOne({ _id: sha256Hex(second) }))?.consumed_at).toBeUndefined();
    expect(await consumed().countDocuments({ _id: { $in: [sha256Hex(first), sha256Hex(second)] } })).toBe(0);
  });

  it('presented again: refused, and the grant is revoked (the newer token stops working, the used one is deleted)', async () => {
    const { clientId, first, second } = await rotatedPair();
    await refused(clientId, first);
    await refused(clientId, second);
    expect(await live().findOne({ _id: sha256Hex(second) })).toBeNull();
    expect(await live().findOne({ _id: sha256Hex(first) })).toBeNull();
  });

  it('one an earlier version moved to the consumed collection: still reuse, and revoking the grant deletes it there', async () => {
    const { clientId, first, second } = await rotatedPair();
    // As the earlier mover did: the stored form copied there, then deleted from the live collection.
    const used = (await liveStored().findOne({ _id: sha256Hex(first) }))!;
    await consumed().insertOne(used);
    await liveStored().deleteOne({ _id: used._id });
    await refused(clientId, first);
    await refused(clientId, second);
    expect(await consumed().findOne({ _id: sha256Hex(first) })).toBeNull();
  });

  it('a run of rotations: the last token works, every earlier one is kept as used', async () => {
    const { clientId, first, second } = await rotatedPair();
    let current = second;
    const used: string[] = [first];
    for (let i = 0; i < 5; i += 1) {
      const next = await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: current });
      used.push(current);
      current = next.refresh_token!;
    }
    expect(await liveStored().countDocuments({ _id: { $in: used.map(sha256Hex) }, consumed_at: { $exists: true } })).toBe(used.length);
    expect((await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: current })).access_token).toBeTruthy();
  });
});
