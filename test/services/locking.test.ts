import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createChanges } from '../../src/lib/changes.ts';
import { createRepositories } from '../../src/repositories/index.ts';
import { LockService } from '../../src/services/locking.ts';
import { rejection, useTestDatabase } from '../support/fixtures.ts';
import { race } from '../support/concurrency.ts';

const t = useTestDatabase();

/** The lock service of one instance, and of a second one on the same database (its own repositories). */
const instances = () => [new LockService(t.repos), new LockService(createRepositories(t.db, { changes: createChanges() }))] as const;

describe('the injected lock service', () => {
  it('runs changes to one thing one at a time, on one instance and across two', async () => {
    const [first, second] = instances();
    let inside = 0;
    let most = 0;
    let done = 0;
    const change = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(5);
      inside--;
      done++;
    };
    // 20 at once, half through each instance: every one waits its turn, none overlaps another.
    await race(20, (i) => (i % 2 ? second : first).run('test:one-thing', change, { waitMs: 30_000 }));
    console.log(`[locks] 20 concurrent changes through two instances: at most ${most} at once`);
    expect(done).toBe(20);
    expect(most).toBe(1);
  });

  it('answers 409 conflict when the lease stays busy past the wait', async () => {
    const [first, second] = instances();
    let release!: () => void;
    const held = first.run('test:busy', () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(50);
    const err = await rejection(second.run('test:busy', async () => 'never', { waitMs: 100 }));
    expect(err).toMatchObject({ status: 409, code: 'conflict' });
    release();
    await held;
    expect(await second.run('test:busy', async () => 'now')).toBe('now');
  });

  it('gives a single-use claim to exactly one of many concurrent callers, on one instance and across two', async () => {
    for (const name of ['test:claim-one', 'test:claim-two']) {
      const [first, second] = instances();
      const both = name.endsWith('two');
      const claims = await race(30, (i) => (both && i % 2 ? second : first).claim(name, 60_000));
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
  });
});
