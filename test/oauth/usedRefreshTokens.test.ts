import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { CONSUMED_REFRESH_TOKENS, collectionName } from '../../src/repositories/oidcStore.ts';
import { useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import type { TestUser } from '../support/tokens.ts';

/**
 * Used (rotated) refresh tokens leave the collection every refresh reads: shortly after use they are
 * moved, in their stored form, to a collection of their own, where presenting one again is still
 * detected as reuse and revokes the grant. The move is made quick here (OAUTH_CONSUMED_MOVE_DELAY_MS).
 */
const env = useApiServer({ overrides: { oauthConsumedMoveDelayMs: 20, sweepIntervalSeconds: 3600, webhookPollIntervalMs: 60_000 } });
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

describe('used refresh tokens', () => {
  it('are moved out of the live collection, hashed and sealed as before', async () => {
    const { first, second } = await rotatedPair();
    await waitFor('the used refresh token to leave the live collection', async () => (await live().findOne({ _id: sha256Hex(first) })) === null || undefined, 5000, 20);
    const moved = (await consumed().findOne({ _id: sha256Hex(first) }))!;
    expect(moved).not.toBeNull();
    expect(moved.consumed_at).toBeInstanceOf(Date);
    expect(moved.sealed).toBeTruthy();
    expect(JSON.stringify(moved)).not.toContain(first);
    expect(await live().findOne({ _id: sha256Hex(first) })).toBeNull();
    // The new one is live, and only there.
    expect(await live().findOne({ _id: sha256Hex(second) })).not.toBeNull();
    expect(await consumed().findOne({ _id: sha256Hex(second) })).toBeNull();
  });

  it('presented again after the move: refused, and the grant is revoked (the newer token stops working)', async () => {
    const { clientId, first, second } = await rotatedPair();
    await waitFor('the used refresh token to leave the live collection', async () => (await live().findOne({ _id: sha256Hex(first) })) === null || undefined, 5000, 20);
    expect(await consumed().findOne({ _id: sha256Hex(first) })).not.toBeNull();
    await expect(tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: first })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('invalid_grant'),
    });
    await expect(tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: second })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('invalid_grant'),
    });
    expect(await live().findOne({ _id: sha256Hex(second) })).toBeNull();
    expect(await consumed().findOne({ _id: sha256Hex(first) })).toBeNull();
  });

  it('a run of rotations leaves one live refresh token per grant', async () => {
    const { clientId, second } = await rotatedPair();
    let current = second;
    const used: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const next = await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: current });
      used.push(current);
      current = next.refresh_token!;
    }
    // Copied first, then deleted from the live collection: wait for both.
    await waitFor(
      'every used refresh token to be moved',
      async () => ((await consumed().countDocuments({ _id: { $in: used.map(sha256Hex) } })) === used.length && (await live().countDocuments({ _id: { $in: used.map(sha256Hex) } })) === 0) || undefined,
      5000,
      20,
    );
    expect(await live().countDocuments({ _id: { $in: [...used, current].map(sha256Hex) } })).toBe(1);
    expect((await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: current })).access_token).toBeTruthy();
  });
});
