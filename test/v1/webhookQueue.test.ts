import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import { realWaits } from '../support/realWaits.ts';

/** The delivery queue with two instances on one database, and an endpoint that keeps failing. */

const overrides = { webhookAllowLoopback: true, webhookPollIntervalMs: 20, webhookRetryBaseMs: 100, webhookRetryWindowSeconds: 1.5, webhookTimeoutMs: 500 };
const env = useApiServer({ overrides });
let first: TestServer, second: TestServer, api: Api, admin: string;
const receivers: Receiver[] = [];
beforeAll(async () => {
  ({ server: first, api, adminToken: admin } = env);
  // One deployment of two instances: same database, same keys, same public URL (so one token works on both).
  second = await startAnotherInstance(first, overrides);
});
afterAll(async () => {
  await second?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

describe('two instances', () => {
  it('each event is delivered once', async () => {
    const r = await receiver();
    const hook = await api.post('/v1/webhooks', { token: admin, body: { url: r.url, events: ['project.created'] } });
    expect(hook.status).toBe(201);
    const EVENTS = 20;
    // Changes made through both instances; both poll the queue every 20 ms.
    for (let i = 0; i < EVENTS; i++) {
      const res = await fetch(`${i % 2 ? second.running.url : first.running.url}/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `fan-out-${i}-${Date.now()}` }),
      });
      expect(res.status).toBe(201);
    }
    await waitFor(`${EVENTS} deliveries`, async () => r.received.length >= EVENTS, 20_000, 20);
    // Long enough for a second attempt to show: 25 polls of each instance.
    await realWaits.dispatcherPolls(500);
    expect(r.received).toHaveLength(EVENTS);
    expect(new Set(r.received.map((q) => q.headers['slipway-delivery'])).size).toBe(EVENTS);
    expect(new Set(r.received.map((q) => JSON.parse(q.body).id)).size).toBe(EVENTS);
    const log = await api.get(`/v1/webhooks/${hook.body.id}/deliveries?per_page=100`, { token: admin });
    expect(log.body.pagination.total).toBe(EVENTS);
    expect(log.body.data.every((d: { status: string; attempt_count: number }) => d.status === 'succeeded' && d.attempt_count === 1)).toBe(true);
    expect(await first.repos.webhookQueue.collection.countDocuments({})).toBe(0);
    // Both instances took part, and between them made one attempt per event.
    const attempts = (server: TestServer) => server.logs.filter((line) => line.includes('"webhook delivery attempt"') && line.includes(hook.body.id)).length;
    expect(attempts(first) + attempts(second)).toBe(EVENTS);
    expect(attempts(first)).toBeGreaterThan(0);
    expect(attempts(second)).toBeGreaterThan(0);
  });
});

describe('an endpoint that keeps failing', () => {
  it('is retried for the retry window, then the delivery fails, the endpoint is disabled and webhook.disabled recorded', async () => {
    const r = await receiver(() => 503);
    const hook = (await api.post('/v1/webhooks', { token: admin, body: { url: r.url, events: ['user.deleted'] } })).body;
    const ping = (await api.post(`/v1/webhooks/${hook.id}/ping`, { token: admin })).body;
    const disabled = await waitFor(
      'the endpoint to be disabled',
      async () => {
        const res = await api.get(`/v1/webhooks/${hook.id}`, { token: admin });
        return res.body.status === 'disabled' && res.body;
      },
      15_000,
    );
    expect(disabled.status).toBe('disabled');
    const delivery = (await api.get(`/v1/webhooks/${hook.id}/deliveries`, { token: admin })).body.data[0];
    expect(delivery).toMatchObject({ id: ping.id, status: 'failed', next_attempt_at: null });
    expect(delivery.attempt_count).toBeGreaterThanOrEqual(3);
    expect(delivery.attempts.every((a: { status_code: number }) => a.status_code === 503)).toBe(true);
    expect(r.received).toHaveLength(delivery.attempt_count);
    const events = await api.get('/v1/events?type=webhook.disabled', { token: admin });
    expect(events.body.data[0]).toMatchObject({ actor: { type: 'system', id: 'webhooks' }, data: { webhook_id: hook.id, reason: 'failing' } });
    expectRefused(await api.post(`/v1/webhooks/${hook.id}/deliveries/${ping.id}/redeliver`, { token: admin }), 409, 'conflict');

    // Enabled again, it can be sent what failed.
    r.answer = () => 200;
    await api.patch(`/v1/webhooks/${hook.id}`, { token: admin, body: { status: 'enabled' } });
    const before = r.received.length;
    expect((await api.post(`/v1/webhooks/${hook.id}/deliveries/${ping.id}/redeliver`, { token: admin })).status).toBe(200);
    await waitFor('the redelivery', async () => r.received.length > before, 10_000, 20);
    expect(r.received.at(-1)!.headers['slipway-delivery']).toBe(ping.id);
  });
});
