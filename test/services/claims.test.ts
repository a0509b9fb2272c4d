import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { batchedClaims, claimOnce, claimWith, GenerationLeases, sweepEnded, writeUnique, type EndingClaim, type GenerationDoc } from '../../src/db/claims.ts';
import { LockRepository } from '../../src/repositories/locks.ts';
import { WebhookLeaseRepository } from '../../src/repositories/webhookLeases.ts';
import { rejection, useTestDatabase } from '../support/fixtures.ts';
import { race } from '../support/concurrency.ts';

/*
 * The claims primitive (src/db/claims.ts), against the run's real database: what every single-use
 * token, lease, quota slot and name rests on. Each race runs through one client (one instance) and
 * through two clients of the same database (two instances), many callers at once.
 */
const t = useTestDatabase();
let other: MongoClient;
/** The same database through each instance's own client. */
let dbs: [Db, Db];

beforeAll(async () => {
  other = await MongoClient.connect(inject('mongodbUri'));
  dbs = [t.db, other.db(t.db.databaseName)];
});
afterAll(async () => {
  await other?.close();
});

const RACERS = 20;
const INSTANCES = [1, 2] as const;
/** Which instance's object racer `i` uses: all the first's, or every other one the second's. */
const pick = <T>(pair: readonly [T, T], instances: number, i: number) => pair[i % instances];
const ids = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/**
 * What concurrent sweeps say they removed: one sweep, exactly `expected`; two at once, each at most that
 * and together at least that (both may count a document they deleted at the same moment). What is
 * left is asserted on its own.
 */
function expectRemoved(removed: number[], expected: number): void {
  if (removed.length === 1) return void expect(removed[0]).toBe(expected);
  for (const count of removed) expect(count).toBeLessThanOrEqual(expected);
  expect(removed.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(expected);
}

interface Named extends EndingClaim {
  name: string;
  by: number;
}

describe('claimOnce', () => {
  for (const instances of INSTANCES) {
    it(`${RACERS} claims of one key at once on ${instances} instance(s): exactly one wins, and its document is the one stored`, async () => {
      for (let round = 0; round < 3; round++) {
        const id = `once-${instances}-${round}`;
        const wins = await Promise.all(
          Array.from({ length: RACERS }, (_, i) => claimOnce(pick(dbs, instances, i).collection<Named>('claims_once'), { _id: id, name: id, by: i, expires_at: new Date() })),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
        const stored = await t.db.collection<Named>('claims_once').findOne({ _id: id });
        expect(stored?.by).toBe(wins.indexOf(true));
      }
    });

    it(`${RACERS} claims of one name under a unique index (distinct ids) on ${instances} instance(s): exactly one wins`, async () => {
      const collection = t.db.collection<Named>(`claims_named_${instances}`);
      await collection.createIndex({ name: 1 }, { unique: true, name: 'name_unique' });
      const wins = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => claimOnce(pick(dbs, instances, i).collection<Named>(`claims_named_${instances}`), { _id: `doc${i}`, name: 'one name', by: i, expires_at: new Date() })),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await collection.countDocuments({})).toBe(1);
    });
  }
});

describe('batchedClaims', () => {
  for (const instances of INSTANCES) {
    it(`${RACERS} keys each claimed ${RACERS / 4} times at once (${RACERS * 5} calls) on ${instances} instance(s): one winner per key, in fewer inserts than calls`, async () => {
      const name = `claims_batched_${instances}`;
      // Two clients of this run's database that report their commands (one per instance).
      const clients = [await MongoClient.connect(inject('mongodbUri'), { monitorCommands: true }), await MongoClient.connect(inject('mongodbUri'), { monitorCommands: true })] as const;
      const claimers = [batchedClaims(clients[0].db(t.db.databaseName).collection<Named>(name)), batchedClaims(clients[1].db(t.db.databaseName).collection<Named>(name))] as const;
      let inserts = 0;
      const count = (event: { commandName: string; command: Record<string, unknown> }) => {
        if (event.commandName === 'insert' && event.command.insert === name) inserts += 1;
      };
      for (const client of clients) client.on('commandStarted', count);
      try {
        const keys = ids(RACERS, `batched-${instances}-`);
        const calls = Array.from({ length: RACERS * 5 }, (_, i) => ({ key: keys[i % RACERS]!, by: i }));
        const wins = await Promise.all(calls.map(({ key, by }) => pick(claimers, instances, by)({ _id: key, name: key, by, expires_at: new Date() })));
        for (const key of keys) expect(calls.filter((c, i) => c.key === key && wins[i]), key).toHaveLength(1);
        // The stored document is the winner's.
        for (const doc of await t.db.collection<Named>(name).find({}).toArray()) expect(wins[doc.by]).toBe(true);
        expect(await t.db.collection<Named>(name).countDocuments({})).toBe(RACERS);
        expect(inserts).toBeGreaterThan(0);
        expect(inserts).toBeLessThan(calls.length);
      } finally {
        for (const client of clients) await client.close();
      }
    });
  }

  it('a lone claim is sent at once and answered like claimOnce; the same key again is refused', async () => {
    const claim = batchedClaims(t.db.collection<Named>('claims_batched_lone'));
    expect(await claim({ _id: 'lone', name: 'lone', by: 1, expires_at: new Date() })).toBe(true);
    expect(await claim({ _id: 'lone', name: 'lone', by: 2, expires_at: new Date() })).toBe(false);
  });
});

describe('claimWith', () => {
  for (const instances of INSTANCES) {
    it(`${RACERS} claims of one key with a document each, at once on ${instances} instance(s): one wins and only its document is stored`, async () => {
      const name = `claims_with_${instances}`;
      const wins = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          claimWith(pick(dbs, instances, i).collection<Named>(name), { _id: 'the-claim', name: 'claim', by: i, expires_at: new Date() }, [{ _id: `follower-${i}`, name: 'follower', by: i, expires_at: new Date() }]),
        ),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = wins.indexOf(true);
      const followers = await t.db.collection<Named>(name).find({ name: 'follower' }).toArray();
      expect(followers.map((f) => f.by)).toEqual([winner]);
      expect((await t.db.collection<Named>(name).findOne({ _id: 'the-claim' }))?.by).toBe(winner);
    });
  }
});

describe('writeUnique', () => {
  for (const instances of INSTANCES) {
    it(`${RACERS} upserts of a new name at once on ${instances} instance(s): each gets the write's result or the conflict's answer, and one document stands`, async () => {
      const name = `upsert-${instances}`;
      const collection = t.db.collection<{ name: string; by: number }>('claims_upserts');
      await collection.createIndex({ name: 1 }, { unique: true, name: 'name_unique' });
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          writeUnique(
            () => pick(dbs, instances, i).collection<{ name: string; by: number }>('claims_upserts').updateOne({ name }, { $setOnInsert: { by: i } }, { upsert: true }).then(() => 'written' as const),
            () => 'taken' as const,
          ),
        ),
      );
      expect(answers.every((a) => a === 'written' || a === 'taken')).toBe(true);
      expect(answers.filter((a) => a === 'written').length).toBeGreaterThanOrEqual(1);
      expect(await collection.countDocuments({ name })).toBe(1);
    });
  }

  it('answers a taken name with `ifTaken` (which may throw) and passes every other failure on', async () => {
    const collection = t.db.collection<Named>('claims_write');
    expect(await writeUnique(() => collection.insertOne({ _id: 'w', name: 'w', by: 0, expires_at: new Date() }).then(() => 'first'), () => 'taken')).toBe('first');
    expect(await writeUnique(() => collection.insertOne({ _id: 'w', name: 'w', by: 1, expires_at: new Date() }).then(() => 'second'), () => 'taken')).toBe('taken');
    const refusal = await rejection(writeUnique(() => collection.insertOne({ _id: 'w', name: 'w', by: 2, expires_at: new Date() }), () => { throw new Error('name taken'); }));
    expect((refusal as Error).message).toBe('name taken');
    // Not a unique conflict: an unknown update operator is the server's refusal, thrown as it came.
    const other = await rejection(writeUnique(() => collection.updateOne({ _id: 'w' }, { $bogus: { by: 3 } } as never), () => 'taken'));
    expect((other as Error).name).toBe('MongoServerError');
    expect((await collection.findOne({ _id: 'w' }))?.by).toBe(0);
  });
});

describe('leases with an end', () => {
  let leases: [WebhookLeaseRepository, WebhookLeaseRepository];
  beforeAll(() => {
    leases = [t.repos.webhookLeases, new WebhookLeaseRepository(dbs[1])];
  });

  for (const instances of INSTANCES) {
    it(`${RACERS} claims of one lease at once on ${instances} instance(s): one holder`, async () => {
      const id = `lease-claim-${instances}`;
      const wins = await race(RACERS, (i) => pick(leases, instances, i).tryClaim(id, 60_000));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it(`${RACERS} take-overs at once of a lease whose holder died, on ${instances} instance(s): one new holder, with its own end`, async () => {
      for (let round = 0; round < 5; round++) {
        const id = `lease-takeover-${instances}-${round}`;
        const now = new Date();
        expect(await leases[0].tryClaim(id, 1_000, new Date(now.getTime() - 5_000))).toBe(true);
        const ended = (await leases[0].find(id))!;
        expect(ended.expires_at.getTime()).toBeLessThan(now.getTime());
        const wins = await race(RACERS, (i) => pick(leases, instances, i).takeOver(id, ended, 60_000, now));
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect((await leases[0].find(id))!.expires_at.getTime()).toBe(now.getTime() + 60_000);
      }
    });

    it(`${RACERS} claim-or-take-overs at once of an ended lease on ${instances} instance(s): one holder`, async () => {
      const id = `lease-either-${instances}`;
      const now = new Date();
      expect(await leases[0].tryClaim(id, 1_000, new Date(now.getTime() - 5_000))).toBe(true);
      const wins = await race(RACERS, (i) => pick(leases, instances, i).claimOrTakeOver(id, 60_000, now));
      expect(wins.filter(Boolean)).toHaveLength(1);
    });
  }

  it('a lease still running is neither claimed nor taken over', async () => {
    const id = 'lease-live';
    expect(await leases[0].tryClaim(id, 60_000)).toBe(true);
    const live = (await leases[0].find(id))!;
    expect(await leases[1].takeOver(id, live, 60_000)).toBe(false);
    expect(await leases[1].claimOrTakeOver(id, 60_000)).toBe(false);
    expect(await leases[1].tryClaim(id, 60_000)).toBe(false);
  });

  it("the release of an outlived lease does not end its successor's; the successor's own release does", async () => {
    const id = 'lease-outlived';
    const now = new Date();
    const firstStart = new Date(now.getTime() - 5_000);
    expect(await leases[0].tryClaim(id, 1_000, firstStart)).toBe(true);
    const firstEnd = (await leases[0].find(id))!.expires_at;
    // A stalled first holder: the second instance takes the place over meanwhile.
    expect(await leases[1].claimOrTakeOver(id, 60_000, now)).toBe(true);
    await leases[0].release(id, firstEnd);
    expect((await leases[0].find(id))?.expires_at.getTime()).toBe(now.getTime() + 60_000);
    expect(await leases[0].claimOrTakeOver(id, 60_000, now)).toBe(false);
    await leases[1].release(id, new Date(now.getTime() + 60_000));
    expect(await leases[0].find(id)).toBeNull();
    expect(await leases[0].tryClaim(id, 60_000, now)).toBe(true);
  });

  for (const instances of INSTANCES) {
    it(`the sweep on ${instances} instance(s) removes leases and take-over tickets a day after they ended, and nothing newer`, async () => {
      const now = new Date();
      const dayAgo = new Date(now.getTime() - 24 * 3600_000);
      const collection = leases[0].collection;
      const old = ids(30, `sweep-old-${instances}-`);
      const recent = ids(10, `sweep-recent-${instances}-`);
      await collection.insertMany([
        ...old.map((_id) => ({ _id, expires_at: new Date(dayAgo.getTime() - 60_000) })),
        ...recent.map((_id) => ({ _id, expires_at: new Date(dayAgo.getTime() + 60_000) })),
      ]);
      const removed = await race(instances, (i) => leases[i].sweep(now));
      expectRemoved(removed, old.length);
      expect(await collection.countDocuments({ _id: { $in: old } })).toBe(0);
      expect(await collection.countDocuments({ _id: { $in: recent } })).toBe(recent.length);
    });
  }
});

describe('generation leases', () => {
  let locks: [LockRepository, LockRepository];
  beforeAll(() => {
    locks = [t.repos.locks, new LockRepository(dbs[1])];
  });

  for (const instances of INSTANCES) {
    it(`${RACERS} acquisitions of one name at once on ${instances} instance(s): one holder per generation, and the generations follow each other`, async () => {
      const name = `gen-race-${instances}`;
      for (let generation = 1; generation <= 3; generation++) {
        const leases = await race(RACERS, (i) => pick(locks, instances, i).tryAcquire(name, 60_000));
        const held = leases.filter((l) => l !== null);
        expect(held).toHaveLength(1);
        expect(held[0]!.generation).toBe(generation);
        // Nobody else while it is held; released, the next round takes the next generation.
        expect(await locks[1].tryAcquire(name, 60_000)).toBeNull();
        await pick(locks, instances, 1).release(held[0]!);
      }
    });

    it(`an ended generation is taken over by one of ${RACERS} on ${instances} instance(s), and its release by a stale token does nothing`, async () => {
      const name = `gen-ended-${instances}`;
      const start = new Date(Date.now() - 10_000);
      const first = (await locks[0].tryAcquire(name, 1_000, start))!;
      expect(first.generation).toBe(1);
      const leases = await race(RACERS, (i) => pick(locks, instances, i).tryAcquire(name, 60_000));
      const held = leases.filter((l) => l !== null);
      expect(held).toHaveLength(1);
      expect(held[0]!.generation).toBe(2);
      await locks[0].release(first);
      expect(await locks[1].tryAcquire(name, 60_000)).toBeNull();
    });

    it(`the sweep on ${instances} instance(s) keeps each name's newest generation, so numbering continues after it`, async () => {
      // A collection of its own, so the sweep sees only this test's generations.
      const collection = `claims_generations_${instances}`;
      await t.db.collection<GenerationDoc>(collection).createIndex({ name: 1, generation: -1 }, { name: 'name_generation' });
      const locks = dbs.map((db) => new GenerationLeases(db.collection<GenerationDoc>(collection), 24 * 3600_000)) as [GenerationLeases, GenerationLeases];
      const name = `gen-sweep-${instances}`;
      const start = new Date(Date.now() - 3 * 24 * 3600_000);
      for (let generation = 1; generation <= 5; generation++) {
        const lease = (await locks[generation % 2].tryAcquire(name, 1_000, new Date(start.getTime() + generation * 10_000)))!;
        expect(lease.generation).toBe(generation);
        await locks[0].release(lease, new Date(start.getTime() + generation * 10_000 + 1));
      }
      const live = (await locks[0].tryAcquire(`${name}-live`, 60_000))!;
      const removed = await race(instances, (i) => locks[i].sweep());
      expectRemoved(removed, 4);
      const left = await locks[0].collection.find({ name }).toArray();
      expect(left.map((d) => d.generation)).toEqual([5]);
      expect(await locks[0].collection.countDocuments({ name: `${name}-live` })).toBe(1);
      const next = await race(RACERS, (i) => pick(locks, instances, i).tryAcquire(name, 60_000));
      expect(next.filter((l) => l !== null).map((l) => l!.generation)).toEqual([6]);
      await locks[0].release(live);
    });
  }
});

describe('sweeping ended claims', () => {
  /** More than one batch of deleteInBatches (5,000 ids a delete). */
  const ENDED = 6_000;

  for (const instances of INSTANCES) {
    it(`removes ${ENDED} ended claims in batches on ${instances} instance(s), and keeps every claim not ended yet (its last moment included)`, { timeout: 120_000 }, async () => {
      const name = `claims_sweep_${instances}`;
      const collection = t.db.collection<EndingClaim>(name);
      const now = new Date();
      for (let start = 0; start < ENDED; start += 3_000) {
        await collection.insertMany(ids(3_000, `ended-${start}-`).map((_id) => ({ _id, expires_at: new Date(now.getTime() - 1 - (start % 1000)) })));
      }
      const kept = ['ends-later', 'ends-now'];
      await collection.insertMany([{ _id: 'ends-now', expires_at: now }, { _id: 'ends-later', expires_at: new Date(now.getTime() + 60_000) }]);
      const removed = await race(instances, (i) => sweepEnded(dbs[i].collection<EndingClaim>(name), now));
      expectRemoved(removed, ENDED);
      expect((await collection.find({}).toArray()).map((d) => d._id).sort()).toEqual(kept);
    });
  }
});
