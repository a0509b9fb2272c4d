import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { WebhookLeaseRepository } from '../../src/repositories/webhookLeases.ts';
import { useTestDatabase } from '../support/fixtures.ts';
import { race } from '../support/concurrency.ts';

/*
 * An endpoint's places for attempts in flight (`<webhook>#slot<n>`) are leases: claimed by a unique
 * insert, and taken over once their holder died (the lease ended). Many claimers at once, through one
 * client (one instance) and through two (two instances), must yield exactly one holder.
 */
const t = useTestDatabase();
let other: MongoClient;
let one: WebhookLeaseRepository, two: WebhookLeaseRepository;

beforeAll(async () => {
  other = await MongoClient.connect(inject('mongodbUri'));
  one = t.repos.webhookLeases;
  two = new WebhookLeaseRepository(other.db(t.db.databaseName));
});
afterAll(async () => {
  await other?.close();
});

const CLAIMERS = 40;

describe('webhook slot leases', () => {
  for (const instances of [1, 2]) {
    it(`${CLAIMERS} claims at once on ${instances} instance(s): one holder`, async () => {
      const id = `whk_race${instances}#slot0`;
      const wins = await race(CLAIMERS, (i) => (i % instances ? two : one).tryClaim(id, 60_000));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it(`${CLAIMERS} takeovers at once of a lease whose holder died, on ${instances} instance(s): one new holder`, async () => {
      for (let round = 0; round < 5; round++) {
        const id = `whk_takeover${instances}_${round}#slot1`;
        const now = new Date();
        expect(await one.tryClaim(id, 1_000, new Date(now.getTime() - 5_000))).toBe(true);
        const expired = (await one.find(id))!;
        expect(expired.expires_at.getTime()).toBeLessThan(now.getTime());
        const wins = await race(CLAIMERS, (i) => (i % instances ? two : one).takeOver(id, expired, 60_000, now));
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect((await one.find(id))!.expires_at.getTime()).toBe(now.getTime() + 60_000);
      }
    });
  }

  it('a lease still running is not taken over', async () => {
    const id = 'whk_live#slot0';
    expect(await one.tryClaim(id, 60_000)).toBe(true);
    const live = (await one.find(id))!;
    expect(await two.takeOver(id, live, 60_000)).toBe(false);
    expect(await two.tryClaim(id, 60_000)).toBe(false);
  });
});
