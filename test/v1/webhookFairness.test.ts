import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import { sample } from '../support/metrics.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import type { Tokens } from '../support/tokens.ts';
import { realWaits } from '../support/realWaits.ts';
import { race } from '../support/concurrency.ts';

/*
 * "What was seen" #7: one account's endpoint that accepts connections and never answers, with 200
 * deliveries pending, held another account's first delivery for more than 90 s. Now endpoints are
 * served in turn, at most WEBHOOK_ENDPOINT_CONCURRENCY (2) attempts in flight to one endpoint across
 * instances, and an endpoint that keeps failing is paused as a whole and probed with backoff.
 * Two instances on one database throughout, with the real 10 s attempt timeout.
 */
const CONCURRENCY = 2;
const CIRCUIT_FAILURES = 5;
/** A retry, and a paused endpoint's probe, waits this long (± 25 %), doubling: reached by moving the instances' clock. */
const RETRY_BASE_MS = 60_000;
const overrides = {
  webhookAllowLoopback: true,
  webhookPollIntervalMs: 50,
  webhookTimeoutMs: 10_000,
  webhookRetryBaseMs: RETRY_BASE_MS,
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
    const batch = await race(Math.min(20, count - i), async (j) => {
        const base = (i + j) % 2 ? second.url : first.url;
        const res = await fetch(`${base}/v1/webhooks/${webhookId}/ping`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      });
    ids.push(...batch);
  }
  return ids;
}

/** Attempts made by both instances (their log lines), for one endpoint. */
/** Attempts to the endpoint in flight on either instance: the places it holds (leases `<id>#slot<n>`). */
const inFlight = async (webhookId: string) => await first.repos.webhookLeases.collection.countDocuments({ _id: { $regex: `^${webhookId}#slot\\d+$` } });

/**
 * Moves the instances' clock by `ms` once nothing of the endpoint is due or in flight: a jump past the
 * lease of an attempt in flight would let the other instance take its place over, as if it had died.
 */
async function advanceWhenIdle(webhookId: string, ms: number): Promise<void> {
  await waitFor('nothing due or in flight', async () => {
    const due = await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId, due_at: { $lte: first.clock.date() } });
    return due === 0 && (await inFlight(webhookId)) === 0;
  }, 30_000, 20);
  first.clock.advance(ms);
}

function attemptsLogged(webhookId: string): number {
  const count = (server: TestServer) => server.logs.filter((line) => line.includes('"webhook delivery attempt"') && line.includes(webhookId)).length;
  return count(first) + count(second);
}


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
    await realWaits.dispatcherPolls(1500);
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
    const circuit = async () => await first.repos.webhookCircuits.find(webhookId);
    /**
     * Every request the receiver saw is recorded as an attempt, by one of the two instances, and counted
     * toward the circuit: the endpoint's places (leases `<id>#slot<n>`) are all free again.
     */
    const settled = () =>
      waitFor('every attempt recorded', async () => (await inFlight(webhookId)) === 0 && attemptsLogged(webhookId) === failing.received.length, 10_000, 20);

    // Without the circuit, each of the 100 deliveries would be tried (2 at a time, 20 ms each). Paused,
    // it gets its 5 failures, plus at most one attempt in flight beside the fifth and one for two
    // failures finishing at the same moment on the two instances and counted as one.
    await waitFor('the circuit to open', async () => (await circuit())?.open_until ?? undefined, 20_000, 20);
    await settled();
    const paused = failing.received.length;
    expect(paused).toBeGreaterThanOrEqual(CIRCUIT_FAILURES);
    expect(paused).toBeLessThanOrEqual(CIRCUIT_FAILURES + 2);
    /** The pause as recorded (after every attempt so far): until when, and after how many failures in a row. */
    const pause = async () => {
      const open = (await circuit())!;
      // A retry base (± 25 %) on the instances' clock after the fifth failure, doubling with each one after.
      const delay = RETRY_BASE_MS * 2 ** (open.failures - CIRCUIT_FAILURES);
      const left = open.open_until!.getTime() - first.clock.now();
      expect(left).toBeGreaterThan(0.75 * delay - 5_000);
      expect(left).toBeLessThanOrEqual(1.25 * delay);
      return open;
    };
    let open = await pause();

    // Once a pause is over, one probe; it fails and pauses the endpoint again, twice as long. Nothing else meanwhile.
    for (let probe = 1; probe <= 3; probe++) {
      first.clock.advance(Math.max(0, open.open_until!.getTime() + 1 - first.clock.now()));
      const failures = open.failures;
      await waitFor(`probe ${probe} to fail`, async () => ((await circuit())?.failures ?? 0) > failures, 10_000, 20);
      await settled();
      expect(failing.received.length).toBe(paused + probe);
      open = await pause();
      expect(open.failures).toBe(failures + 1);
    }
    console.log(`[webhooks] a failing endpoint with 100 deliveries pending: ${paused} attempts before the pause, then one probe per pause`);
    expect(failing.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
    // Paused once (by whichever instance recorded the fifth failure), as the metrics of the two tell.
    const pausedMetric = async (server: TestServer) => sample(await (await fetch(server.metricsUrl!)).text(), 'slipway_webhook_endpoints_paused_total');
    expect((await pausedMetric(first)) + (await pausedMetric(second))).toBeGreaterThanOrEqual(1);
    // Every delivery is still pending, none given up.
    expect(await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })).toBe(100);

    // It recovers (answering slowly enough for attempts to overlap): the next probe closes the circuit.
    // The deliveries that failed are due again by then (each failed once, a base ago at most).
    failing.answer = () => ({ status: 200, delayMs: 50 });
    const before = failing.received.length;
    first.clock.advance(Math.max(0, open.open_until!.getTime() + 1 - first.clock.now()));
    await waitFor('the circuit to close', async () => (await circuit()) === null, 10_000, 20);
    await waitFor('every delivery to succeed', async () => (await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })) === 0, 60_000, 50);
    const succeeded = failing.received.slice(before).filter((q) => q.status === 200);
    expect(succeeded).toHaveLength(100);
    expect(new Set(succeeded.map((q) => q.headers['slipway-delivery']))).toEqual(new Set(deliveries));
    expect(failing.maxOpen).toBeLessThanOrEqual(CONCURRENCY);
    expect(await circuit()).toBeNull();
    // Each attempt made once, by one of the two instances: the log's attempts are the receiver's requests.
    await settled();
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
    // Those never tried go at once; those that failed when their backoff is over (the clock is moved past it).
    await advanceWhenIdle(webhookId, 1.25 * RETRY_BASE_MS + 1);
    await waitFor('all 10 to be delivered', async () => (await first.repos.webhookQueue.collection.countDocuments({ webhook_id: webhookId })) === 0, 30_000, 50);
    expect(r.received.filter((q) => q.status === 200)).toHaveLength(10);
    expect(await first.repos.webhookCircuits.find(webhookId)).toBeNull();
  }, 60_000);
});

describe('many endpoints with backlogs, two instances', () => {
  it('each endpoint gets at most 2 attempts at once, every event arrives once, and a newcomer is served within the first polls', async () => {
    const busy = await race(4, () => receiver(() => ({ status: 200, delayMs: 30 })));
    const ids = await Promise.all(busy.map((r) => endpoint(admin, r)));
    const queued = await Promise.all(ids.map((id) => ping(admin, id, 40)));

    const late = await receiver();
    const lateId = await endpoint(admin, late);
    const started = performance.now();
    await ping(admin, lateId, 1);
    await waitFor('the newcomer', async () => late.received.length === 1, 5_000, 10);
    const ms = Math.round(performance.now() - started);
    await waitFor('every backlog to be delivered', async () => busy.every((r) => r.received.length >= 40), 90_000, 50);
    await waitFor('every attempt recorded', async () => ids.every((id) => attemptsLogged(id) >= 40), 10_000, 20);
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
