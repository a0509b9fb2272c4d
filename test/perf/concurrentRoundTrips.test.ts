import { beforeAll, describe, expect, it } from 'vitest';
import { commandsDuring } from '../support/commands.ts';
import { tokenRequest } from '../support/oauthDriver.ts';
import { signedInConfidential } from '../support/factories.ts';
import { useApiServer } from '../support/fixtures.ts';
import type { TestUser } from '../support/tokens.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { collectionName } from '../../src/repositories/oidc/index.ts';

/**
 * Database commands per request under concurrent load, as `npm run bench` sends it (10 connections): what
 * test/perf/roundTrips.test.ts asserts one request at a time must hold with CONNECTIONS requests in
 * flight, and past the time a grant is held in memory (REVOCATION_REFRESH_SECONDS): a grant held too long
 * is read again once and held again, not read by every request from then on.
 */
const CONNECTIONS = 10;
const WAVES = 6;

const env = useApiServer({ overrides: { webhookPollIntervalMs: 60_000, sweepIntervalSeconds: 3600, schedulerIntervalMs: 60_000 } });
let owner: TestUser;
beforeAll(() => {
  ({ owner } = env);
});

/**
 * Commands the server sent (named with their collection, e.g. `find oidc_grant`) while `request` was called
 * CONNECTIONS at a time, WAVES times: after one unmeasured wave, and again after the server's clock moved
 * past the time a grant is held in memory.
 */
async function concurrentCommands(request: (connection: number) => Promise<void>) {
  const wave = () => Promise.all(Array.from({ length: CONNECTIONS }, (_, i) => request(i)));
  await wave();
  const client = env.server.running.container.database.client;
  const phase = async () => {
    const commands = await commandsDuring(client, async () => {
      for (let w = 0; w < WAVES; w += 1) await wave();
    });
    return { perRequest: commands.length / (CONNECTIONS * WAVES), commands, count: (name: string) => commands.filter((c) => c === name).length };
  };
  const held = await phase();
  env.server.clock.advance(env.server.config.revocationRefreshSeconds * 1000 + 1);
  const after = await phase();
  return { held, after };
}

describe('database commands per request, CONNECTIONS requests at a time', () => {
  it('refresh with a confidential client: at most 0.25, the refresh token and the grant read once after they were held their time', async () => {
    const { credentials, tokens: first } = await signedInConfidential(env.server, owner);
    const { held, after } = await concurrentCommands(async () => {
      const tokens = await tokenRequest(env.server.issuer, credentials, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
      expect(tokens.access_token).toBeTruthy();
    });
    for (const [name, phase] of Object.entries({ held, after })) {
      expect(phase.perRequest, `${name}: ${phase.commands.join(', ')}`).toBeLessThanOrEqual(0.25);
    }
    expect(held.count('find oidc_refresh_token'), 'refresh token from memory').toBe(0);
    expect(held.count('find oidc_grant'), 'grant from memory').toBe(0);
    // Held past their time: each read again by one request (the others in flight wait for that read), then held.
    expect(after.count('find oidc_refresh_token'), 'refresh token read again once').toBe(1);
    expect(after.count('find oidc_grant'), 'grant read again once').toBe(1);
  });

  it('refresh with a public client, rotated every time, one chain per connection: at most 2.25', async () => {
    const clientId = await env.tokens.publicClient(owner.accountId, true);
    const chains: string[] = [];
    for (let i = 0; i < CONNECTIONS; i += 1) chains.push((await env.tokens.forUser(owner, 'read', { clientId, withRefresh: true })).refresh_token!);
    const { held, after } = await concurrentCommands(async (connection) => {
      const tokens = await tokenRequest(env.server.issuer, { clientId }, { grant_type: 'refresh_token', refresh_token: chains[connection]! });
      expect(tokens.refresh_token).toBeTruthy();
      expect(tokens.refresh_token).not.toBe(chains[connection]);
      chains[connection] = tokens.refresh_token!;
    });
    for (const [name, phase] of Object.entries({ held, after })) {
      // Past their time, each chain's token is read once more, as are the client, the user and the grant.
      const limit = name === 'held' ? 2.25 : 2.25 + (CONNECTIONS + 3) / (CONNECTIONS * WAVES);
      expect(phase.perRequest, `${name}: ${phase.commands.join(', ')}`).toBeLessThanOrEqual(limit);
      expect(phase.count('insert oidc_refresh_token'), name).toBe(CONNECTIONS * WAVES);
      expect(phase.count('update oidc_refresh_token'), name).toBe(CONNECTIONS * WAVES);
    }
    expect(held.count('find oidc_grant'), 'grants from memory').toBe(0);
    // Each token was stored by this instance in the wave before and held since; past their time, each chain's
    // token is read once, and its successors are held again.
    expect(held.count('find oidc_refresh_token'), 'refresh tokens from memory').toBe(0);
    expect(after.count('find oidc_refresh_token'), 'each chain’s token read once').toBe(CONNECTIONS);
    // Each grant the chains belong to read again once after it was held its time.
    const stored = await env.server.running.container.database.db
      .collection<{ _id: string; grant_id: string }>(collectionName('RefreshToken'))
      .find({ _id: { $in: chains.map((token) => sha256Hex(token)) } })
      .toArray();
    expect(stored).toHaveLength(CONNECTIONS);
    expect(after.count('find oidc_grant'), 'each grant read again once').toBe(new Set(stored.map((doc) => doc.grant_id)).size);
  });
});
