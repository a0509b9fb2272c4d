import { beforeAll, describe, expect, it } from 'vitest';
import { shareLayout } from '../../src/repositories/sharedBudget.ts';
import { useTwoInstances } from '../support/fixtures.ts';
import { type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/*
 * "What was seen" #3: two instances at a limit of 300/h admitted 313 and 340, because FerretDB applies
 * `$inc` as read-modify-write. Now every admission comes out of a numbered share claimed by a unique
 * insert: two instances on one database, hammered concurrently, admit at most limit + 1%.
 */
const LIMIT = 300;
const PER_INSTANCE = 250;
const CONCURRENCY = 10;
let a: TestServer, b: TestServer;

const two = useTwoInstances({ overrides: { apiRateLimitPerHour: LIMIT } });
beforeAll(() => ({ first: a, second: b } = two));

/** PER_INSTANCE requests to `server`, CONCURRENCY at a time; the statuses. */
async function hammer(server: TestServer, token: string): Promise<number[]> {
  const statuses: number[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < PER_INSTANCE) {
      sent++;
      const res = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  };
  await race(CONCURRENCY, worker);
  return statuses;
}

describe('the shared /v1 rate limit across instances', () => {
  it(`two instances at ${LIMIT}/h, ${2 * PER_INSTANCE} concurrent requests: at most limit + 1% admitted`, async () => {
    const tokens = new Tokens(a);
    const token = await tokens.accessToken(await tokens.user('owner'), 'read');
    const [fromA, fromB] = await Promise.all([hammer(a, token), hammer(b, token)]);
    const admitted = (list: number[]) => list.filter((s) => s === 200).length;
    let total = admitted(fromA) + admitted(fromB);
    console.log(`[rate limit] limit ${LIMIT}/h, 2 instances: admitted ${admitted(fromA)} + ${admitted(fromB)} = ${total} of ${2 * PER_INSTANCE}`);
    expect([...fromA, ...fromB].every((s) => s === 200 || s === 429)).toBe(true);
    // What an instance may strand is the unused rest of one block.
    expect(total).toBeGreaterThanOrEqual(LIMIT - 2 * (shareLayout(LIMIT).size - 1));
    // Both instances refuse from then on, once each has used what is left of the block it holds (an
    // instance whose last request came from a block it still holds units of admits those first).
    const { size } = shareLayout(LIMIT);
    for (const server of [a, b]) {
      let res: Response;
      for (let rest = 0; ; rest++) {
        res = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) break;
        total += 1;
        expect(rest, 'admitted past what is left of one block').toBeLessThan(size - 1);
      }
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(total).toBeLessThanOrEqual(Math.floor(LIMIT * 1.01));
  }, 60_000);

  it('the layout covers the budget exactly: blocks of ~1% far from the limit, single shares near it', () => {
    for (const limit of [1, 6, 99, 100, 300, 5000, 12_345]) {
      const layout = shareLayout(limit);
      const seen: number[] = [];
      for (let k = 0; k < layout.count; k++) {
        const [first, last] = layout.range(k);
        for (let n = first; n <= last; n++) seen.push(n);
      }
      expect(seen).toEqual(Array.from({ length: limit }, (_, i) => i + 1));
      expect(layout.size).toBe(Math.max(1, Math.floor(limit / 100)));
      if (limit >= 1000) expect(layout.range(layout.count - 1)).toEqual([limit, limit]);
    }
  });
});
