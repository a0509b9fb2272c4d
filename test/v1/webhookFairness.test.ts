import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import { sample } from '../support/metrics.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import type { Tokens } from '../support/tokens.ts';

/*
 * "What was seen" #7: one account's endpoint that accepts connections and never answers, with 200
 * deliveries pending, held another account's first delivery for more than 90 s. Now endpoints are
 * served in turn, at most WEBHOOK_ENDPOINT_CONCURRENCY (2) attempts in flight to one endpoint across
 * instances, and an endpoint that keeps failing is paused as a whole and probed with backoff.
 * Two instances on one database throughout, with the real 10 s attempt timeout.
 */
const CONCURRENCY = 2;
const CIRCUIT_FAILURES = 5;
const overrides = {
  webhookAllowLoopback: true,
  webhookPollIntervalMs: 50,
  webhookTimeoutMs: 10_000,
  webhookRetryBaseMs: 500,
  webhookEndpointConcurrency: CONCURRENCY,
  webhookCircuitFailures: CIRCUIT_FAILURES,
};
const env = useApiServer({ overrides });
let first: TestServer, second: TestServer, api: Api, tokens: Tokens, admin: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  ({ server: first, api, tokens, adminToken: admin } = env);
  second = await startAnotherInstance(first, overrides);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await second?.stop();
});

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** An endpoint of `token`'s account subscribed to nothing the tests do (pings reach it all the same); returns its id. */
async function endpoint(token: string, r: Receiver): Promise<string> {
  const res = await api.post('/v1/webhooks', { token, body: { url: r.url, events: ['user.deleted'] } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** `count` pings, sent 20 at a time, alternating between the two instances; returns the delivery ids. */
async function ping(token: string, webhookId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
        const base = (i + j) % 2 ? second.url : first.url;
        const res = await fetch(`${base}/v1/webhooks/${webhookId}/ping`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

/** Attempts made by both instances (their log lines), for one endpoint. */
function attemptsLogged(webhookId: string): number {
  const count = (server: TestServer) => server.logs.filter((line) => line.includes('"webhook delivery attempt"') && line.includes(webhookId)).length;
  return count(first) + count(second);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an endpoint that hangs, with 200 deliveries pending', () => {
  it("does not hold up another account's delivery; never more than 2 attempts in flight to it", async () => {
    const hanging = await receiver(() => 'hang');
    const stuck = await endpoint(admin, hanging);
    await ping(admin, stuck, 200);
    expect(await first.repos.webhookQueue.collection.countDocuments({ webhook_id: stuck })).toBe(200);
    await waitFor('the hanging endpoint to be tried', async () => hanging.received.length >= CONCURRENCY, 10_000, 20);

    // Another account, another endpoint: its first delivery.
    const otherOwner = await tokens.user('owner');
    const otherToken = await tokens.accessToken(otherOwner, 'admin');
    const healthy = await receiver();
    const other = await endpoint(otherToken, healthy);
    const started = performance.now();
    const [delivery] = await ping(otherToken, other, 1);
    await waitFor("the other account's delivery", async () => healthy.received.length >= 1, 5_000, 10);
    const ms = Math.round(performance.now() - started);
    console.log(`[webhooks] another account's delivery arrived ${ms} ms after it was queued, beside a hanging endpoint with 200 pending (hanging endpoint: ${hanging.received.length} attempts, at most ${hanging.maxOpen} at once)`);
    expect(healthy.received[0]!.headers['slipway-delivery']).toBe(delivery);

    // The hanging endpoint only ever had its two places, on two instances polling every 50 ms.
    await sleep(1500);
    expect(hanging.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
    // Each place is taken again only after its attempt timed out (10 s).
    const windows = 1 + Math.floor((Date.now() - hanging.received[0]!.at) / 10_000);
    expect(hanging.received.length).toBeLessThanOrEqual(CONCURRENCY * windows);
    expect((await api.delete(`/v1/webhooks/${stuck}`, { token: admin })).status).toBe(204);
  }, 60_000);
});

describe('an endpoint that keeps failing', () => {
  it('is paused as a whole after 5 failures in a row and probed with backoff; once it answers, everything is delivered, each attempt once', async () => {
    const failing = await receiver(() => ({ status: 503, delayMs: 20 }));
    const webhookId = await endpoint(admin, failing);
    const deliveries = await ping(admin, webhookId, 100);

    // 8 s: without the circuit, each of the 100 deliveries would be tried (2 at a time, 20 ms each)
    // and retried on its own schedule. Paused, it gets its 5 failures, then probes after about 0.5, 1,
    // 2 and 4 s (±25 %), plus at most one attempt that was in flight when it opened.
    await sleep(4000);
    const firstHalf = failing.received.length;
    await sleep(4000);
    const total = failing.received.length;
    console.log(`[webhooks] a failing endpoint with 100 deliveries pending: ${firstHalf} attempts in the first 4 s, ${total - firstHalf} in the next 4 s`);
    expect(total).toBeGreaterThanOrEqual(CIRCUIT_FAILURES);
    // 5 failures, the one in flight beside the fifth, at most 4 probes in 8 s, and a little for two
    // failures finishing at the same moment on the two instances and counted as one.
    expect(total).toBeLessThanOrEqual(CIRCUIT_FAILURES + 1 + 4 + 4);
    expect(total - firstHalf).toBeLessThanOrEqual(2);
    expect(failing.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
    expect(await first.repos.webhookCircuits.find(webhookId)).toMatchObject({ failures: expect.any(Number), open_until: expect.any(Date) });
    // Paused once (by whichever instance recorded the fifth failure), as the metrics of the two tell.
    const paused = async (server: TestServer) => sample(await (await fetch(server.metricsUrl!)).text(), 'slipway_webhook_endpoints_paused_total');
    expect((await paused(first)) + (await paused(second))).toBeGreaterThanOrEqual(1);
    // Every delivery is still pending, none given up.
    expect(await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })).toBe(100);

    // It recovers (answering slowly enough for attempts to overlap): the next probe closes the circuit.
    failing.answer = () => ({ status: 200, delayMs: 50 });
    const before = failing.received.length;
    // The next probe is due at most about 10 s after the last failed one (8 s ±25 % after 9 failures).
    await waitFor('every delivery to succeed', async () => (await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })) === 0, 90_000, 100);
    const succeeded = failing.received.slice(before).filter((q) => q.status === 200);
    expect(succeeded).toHaveLength(100);
    expect(new Set(succeeded.map((q) => q.headers['slipway-delivery']))).toEqual(new Set(deliveries));
    expect(failing.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
    expect(await first.repos.webhookCircuits.find(webhookId)).toBeNull();
    // Each attempt made once, by one of the two instances: the log's attempts are the receiver's requests.
    await sleep(500);
    expect(attemptsLogged(webhookId)).toBe(failing.received.length);
  }, 150_000);
});

describe('a paused endpoint that is changed', () => {
  it('is tried at once: a new URL closes its circuit', async () => {
    const r = await receiver(() => 500);
    const webhookId = await endpoint(admin, r);
    await ping(admin, webhookId, 10);
    await waitFor('the circuit to open', async () => (await first.repos.webhookCircuits.find(webhookId))?.open_until, 20_000, 50);
    r.answer = () => 200;
    const patched = await api.patch(`/v1/webhooks/${webhookId}`, { token: admin, body: { url: `${r.url}/fixed` } });
    expect(patched.status).toBe(200);
    await waitFor('all 10 to be delivered', async () => (await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })) === 0, 30_000, 50);
    expect(r.received.filter((q) => q.status === 200)).toHaveLength(10);
    expect(await first.repos.webhookCircuits.find(webhookId)).toBeNull();
  }, 60_000);
});

describe('many endpoints with backlogs, two instances', () => {
  it('each endpoint gets at most 2 attempts at once, every event arrives once, and a newcomer is served within the first polls', async () => {
    const busy = await Promise.all(Array.from({ length: 4 }, () => receiver(() => ({ status: 200, delayMs: 30 }))));
    const ids = await Promise.all(busy.map((r) => endpoint(admin, r)));
    const queued = await Promise.all(ids.map((id) => ping(admin, id, 40)));

    const late = await receiver();
    const lateId = await endpoint(admin, late);
    const started = performance.now();
    await ping(admin, lateId, 1);
    await waitFor('the newcomer', async () => late.received.length === 1, 5_000, 10);
    const ms = Math.round(performance.now() - started);
    await waitFor('every backlog to be delivered', async () => busy.every((r) => r.received.length >= 40), 90_000, 50);
    await sleep(500);
    console.log(`[webhooks] 4 endpoints with 40 deliveries each (30 ms answers): the newcomer's delivery arrived after ${ms} ms; most at once per endpoint: ${busy.map((r) => r.maxOpen).join(', ')}`);
    busy.forEach((r, i) => {
      expect(r.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
      expect(r.received).toHaveLength(40);
      expect(new Set(r.received.map((q) => q.headers['slipway-delivery']))).toEqual(new Set(queued[i]));
      expect(attemptsLogged(ids[i]!)).toBe(40);
    });
    // Both instances took part.
    const byInstance = (server: TestServer) => server.logs.filter((line) => line.includes('"webhook delivery attempt"') && ids.some((id) => line.includes(id))).length;
    expect(byInstance(first)).toBeGreaterThan(0);
    expect(byInstance(second)).toBeGreaterThan(0);
  }, 150_000);
});
