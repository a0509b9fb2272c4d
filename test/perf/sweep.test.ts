import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import { collectionName, OIDC_CLAIMS } from '../../src/repositories/oidc/index.ts';
import { DELIVERY_RETENTION_MS } from '../../src/repositories/webhookDeliveries.ts';
import { makeClient } from '../support/factories.ts';
import { useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';

/**
 * FerretDB reads a whole collection for every query that is not by `_id`, so the collections written on
 * every request must stay proportional to live state: the server's own sweeper (every
 * SWEEP_INTERVAL_SECONDS, here 1) removes expired OAuth artifacts, rate-limit counters and shares, and
 * idempotency records, and leaves the live ones.
 */
const env = useApiServer({ overrides: { sweepIntervalSeconds: 1, webhookPollIntervalMs: 60_000, tokenRateLimitPerMinute: 5 } });

beforeAll(async () => {
  // A real counter window of the token endpoint (a limit of 5 counts every hit in the database).
  const { client, clientSecret } = await makeClient(env.server, {
    account_id: env.owner.accountId,
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
  });
  await tokenRequest(env.server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope: 'read' });
});

describe('the sweeper keeps the per-request collections small', () => {
  it('expired refresh tokens, grants, claims of used codes and tokens, rate-limit counters and idempotency records go; live ones stay', async () => {
    const db = env.server.running.container.database.db;
    const past = new Date(Date.now() - 60_000);
    const future = new Date(Date.now() + 3600_000);
    const collections = [collectionName('RefreshToken'), collectionName('Grant'), OIDC_CLAIMS, 'rate_limits', 'idempotency_keys'];
    for (const name of collections) {
      await db.collection<{ _id: string; expires_at: Date }>(name).insertMany([
        { _id: `sweep-expired-${name}`, expires_at: past },
        { _id: `sweep-live-${name}`, expires_at: future },
      ]);
    }
    const left = async (name: string, id: string) => (await db.collection<{ _id: string }>(name).countDocuments({ _id: id })) === 1;
    await waitFor('the sweeper', async () => {
      for (const name of collections) if (await left(name, `sweep-expired-${name}`)) return false;
      return true;
    });
    for (const name of collections) expect(await left(name, `sweep-live-${name}`), name).toBe(true);
    // The token endpoint's live window is still counted.
    expect(await db.collection<{ _id: string }>('rate_limits').countDocuments({ _id: { $regex: '^token:' } })).toBeGreaterThan(0);
  });

  it('webhook deliveries finished more than 30 days ago go; newer ones and pending ones stay', async () => {
    const old = new Date(Date.now() - DELIVERY_RETENTION_MS - 60_000);
    const base = { account_id: 'acct_sweep', webhook_id: 'whk_sweep', event_id: 'evt_sweep', event_type: 'project.created', payload: '{}', attempts: [], next_attempt_at: null, succeeded_at: null, updated_at: old };
    const deliveries = env.server.repos.webhookDeliveries.collection;
    await deliveries.insertMany([
      { ...base, _id: 'dlv_sweep_old_done', status: 'succeeded', created_at: old },
      { ...base, _id: 'dlv_sweep_old_failed', status: 'failed', created_at: old },
      { ...base, _id: 'dlv_sweep_old_pending', status: 'pending', created_at: old },
      { ...base, _id: 'dlv_sweep_recent', status: 'succeeded', created_at: new Date() },
    ]);
    await waitFor('the sweeper', async () => (await deliveries.countDocuments({ _id: { $in: ['dlv_sweep_old_done', 'dlv_sweep_old_failed'] } })) === 0);
    expect((await deliveries.find({ account_id: 'acct_sweep' }).toArray()).map((d) => d._id).sort()).toEqual(['dlv_sweep_old_pending', 'dlv_sweep_recent']);
  });
});
