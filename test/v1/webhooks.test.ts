import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/services/webhookSigning.ts';
import type { Api, ApiResponse } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import { sample } from '../support/metrics.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/** Webhooks over HTTP (docs/product.md §7), delivered to real receivers on loopback. */

const RETRY_BASE_MS = 300;
/** A subscription nothing in this file triggers: pings are sent whatever an endpoint subscribes to. */
const QUIET = ['user.deleted'];
const env = useApiServer({
  overrides: { webhookAllowLoopback: true, webhookPollIntervalMs: 50, webhookRetryBaseMs: RETRY_BASE_MS, webhookRetryWindowSeconds: 60, webhookTimeoutMs: 500 },
});
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, admin: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: admin } = env));
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function createWebhook(body: Record<string, unknown>): Promise<ApiResponse['body']> {
  const res = await api.post('/v1/webhooks', { token: admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The receiver's check, written here from the contract alone: HMAC-SHA256 of "t.body", hex, any v1 matching. */
function signedBy(header: string, secret: string, body: string): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')![1]!;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.filter(([k]) => k === 'v1').some(([, v]) => timingSafeEqual(Buffer.from(v!, 'hex'), expected));
}

describe('managing webhooks', () => {
  it('create shows the secret once; get and list never; the database keeps it only encrypted', async () => {
    const r = await receiver();
    const made = await createWebhook({ url: r.url, events: ['deployment.status_changed'], description: 'CI' });
    expect(made).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: r.url,
      events: ['deployment.status_changed'],
      description: 'CI',
      status: 'enabled',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const { secret, ...webhook } = made;
    const got = await api.get(`/v1/webhooks/${made.id}`, { token: admin });
    expect(got.body).toEqual(webhook);
    const list = await api.get('/v1/webhooks?per_page=100', { token: admin });
    expect(list.body.data).toContainEqual(webhook);
    expect(list.text + got.text).not.toContain(secret);
    expect(await dumpDatabase(server.running.container.database.db)).not.toContain(secret);
    const events = await api.get('/v1/events?type=webhook.created', { token: admin });
    expect(events.body.data[0].data).toMatchObject({ webhook_id: made.id, host: `127.0.0.1:${r.port}` });
    expect(events.text).not.toContain(secret);
  });

  it('an Idempotency-Key replay creates nothing new and shows no secret', async () => {
    const r = await receiver();
    const headers = { 'idempotency-key': `hook-${Date.now()}` };
    const first = await api.post('/v1/webhooks', { token: admin, body: { url: r.url, events: ['*'] }, headers });
    const again = await api.post('/v1/webhooks', { token: admin, body: { url: r.url, events: ['*'] }, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, secret: null });
  });

  it('PATCH changes fields (at least one), DELETE removes it; bad bodies are 422', async () => {
    const r = await receiver();
    const made = await createWebhook({ url: r.url, events: ['project.created'] });
    const patched = await api.patch(`/v1/webhooks/${made.id}`, { token: admin, body: { events: ['project.created', 'project.deleted'], status: 'disabled', description: 'x' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['project.created', 'project.deleted'], status: 'disabled', description: 'x' });
    expectRefused(await api.patch(`/v1/webhooks/${made.id}`, { token: admin, body: {} }), 422, 'validation_failed');
    for (const body of [{ url: r.url, events: [] }, { url: r.url, events: ['nope.happened'] }, { url: 'ftp://example.com/', events: ['*'] }, { url: `https://u:p@example.com/`, events: ['*'] }, { url: r.url, events: ['*'], secret: 'mine' }, { url: `https://example.com/${'a'.repeat(2050)}`, events: ['*'] }]) {
      expectRefused(await api.post('/v1/webhooks', { token: admin, body }), 422, 'validation_failed');
    }
    expect((await api.delete(`/v1/webhooks/${made.id}`, { token: admin })).status).toBe(204);
    expectRefused(await api.get(`/v1/webhooks/${made.id}`, { token: admin }), 404, 'not_found');
  });

  it('admins only, never an API key; another account sees 404', async () => {
    const r = await receiver();
    const made = await createWebhook({ url: r.url, events: ['*'] });
    const project = await createProject(api, admin);
    const key = (await api.post(`/v1/projects/${project.id}/api_keys`, { token: admin, body: { name: 'ci', scopes: ['admin'] } })).body.key;
    expectRefused(await api.get('/v1/webhooks', { token: key }), 403, 'forbidden');
    expectRefused(await api.post('/v1/webhooks', { token: key, body: { url: r.url, events: ['*'] } }), 403, 'forbidden');
    const developer = await tokens.user('developer', owner.accountId);
    expectRefused(await api.get('/v1/webhooks', { token: await tokens.accessToken(developer, 'write') }), 403, 'forbidden');
    const stranger = await tokens.user('owner');
    const theirs = await tokens.accessToken(stranger, 'admin');
    expectRefused(await api.get(`/v1/webhooks/${made.id}`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.delete(`/v1/webhooks/${made.id}`, { token: theirs }), 404, 'not_found');
  });
});

describe('deliveries', () => {
  it('a deployment status change reaches the receiver, signed with the secret', async () => {
    const r = await receiver();
    const { secret, id } = await createWebhook({ url: r.url, events: ['deployment.status_changed'] });
    const project = await createProject(api, admin);
    const deployment = (await api.post(`/v1/projects/${project.id}/deployments`, { token: admin, body: { environment: 'production', branch: 'main' } })).body;
    await api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: admin, body: { status: 'building' } });

    await waitFor('the delivery', async () => r.received.length >= 1, 10_000, 20);
    const [request] = r.received;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['slipway-event']).toBe('deployment.status_changed');
    expect(request!.headers['user-agent']).toMatch(/^Slipway-Webhooks\//);
    expect(request!.headers['slipway-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signedBy(request!.headers['slipway-signature'] as string, secret, request!.body)).toBe(true);
    expect(signedBy(request!.headers['slipway-signature'] as string, `${secret}x`, request!.body)).toBe(false);
    // The receiver-side check Slipway ships (and docs/api.md shows) agrees, and refuses a stale timestamp.
    expect(verifySignature(request!.headers['slipway-signature'] as string, secret, request!.body)).toBe(true);
    expect(verifySignature(request!.headers['slipway-signature'] as string, secret, `${request!.body} `)).toBe(false);
    expect(verifySignature(request!.headers['slipway-signature'] as string, secret, request!.body, 300, Math.floor(Date.now() / 1000) + 3600)).toBe(false);
    const event = JSON.parse(request!.body);
    const logged = (await api.get(`/v1/events?type=deployment.status_changed&project_id=${project.id}`, { token: admin })).body.data[0];
    expect(event).toEqual(logged);
    expect(event.data).toMatchObject({ deployment_id: deployment.id, from: 'queued', to: 'building' });

    const log = await waitFor('the log to say succeeded', async () => {
      const res = await api.get(`/v1/webhooks/${id}/deliveries`, { token: admin });
      return res.body.data[0]?.status === 'succeeded' && res.body;
    });
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({ id: request!.headers['slipway-delivery'], event_id: event.id, event_type: 'deployment.status_changed', attempt_count: 1, next_attempt_at: null });
    expect(log.data[0].attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
  });

  it('500, 500, then 200: three attempts with growing gaps in the log; redeliver sends again with the same delivery id', async () => {
    const scrape = async () => await (await fetch(server.metricsUrl!)).text();
    const metricsBefore = await scrape();
    const r = await receiver((i) => (i < 2 ? 500 : 200));
    const { id } = await createWebhook({ url: r.url, events: QUIET });
    const ping = await api.post(`/v1/webhooks/${id}/ping`, { token: admin });
    expect(ping.status).toBe(201);
    expect(ping.body).toMatchObject({ status: 'pending', event_type: 'webhook.ping', attempt_count: 0 });

    const delivered = await waitFor('three attempts', async () => {
      const res = await api.get(`/v1/webhooks/${id}/deliveries`, { token: admin });
      return res.body.data[0]?.status === 'succeeded' && res.body.data[0];
    });
    expect(delivered.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((q) => q.headers['slipway-delivery']))).toEqual(new Set([ping.body.id]));
    const at = delivered.attempts.map((a: { at: string }) => Date.parse(a.at));
    const [gap1, gap2] = [at[1] - at[0], at[2] - at[1]];
    // Backoff base·2^(n−1) with ±25 % jitter: the first gap at least 0.75·base, the second longer than the first.
    expect(gap1).toBeGreaterThanOrEqual(RETRY_BASE_MS * 0.75 - 5);
    expect(gap2).toBeGreaterThan(gap1);
    // The on-call metrics count each attempt by its outcome (other tests' deliveries may add to them).
    const metricsAfter = await scrape();
    const moved = (outcome: string) => sample(metricsAfter, `slipway_webhook_deliveries_total{outcome="${outcome}"}`) - sample(metricsBefore, `slipway_webhook_deliveries_total{outcome="${outcome}"}`);
    expect(moved('failure')).toBeGreaterThanOrEqual(2);
    expect(moved('success')).toBeGreaterThanOrEqual(1);

    const again = await api.post(`/v1/webhooks/${id}/deliveries/${ping.body.id}/redeliver`, { token: admin });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: ping.body.id, status: 'pending' });
    await waitFor('the redelivery', async () => r.received.length >= 4, 10_000, 20);
    expect(r.received[3]!.headers['slipway-delivery']).toBe(ping.body.id);
    expect(r.received[3]!.body).toBe(r.received[0]!.body);
    const after = await waitFor('the log to show four attempts', async () => {
      const res = await api.get(`/v1/webhooks/${id}/deliveries`, { token: admin });
      return res.body.data[0]?.attempt_count === 4 && res.body.data[0];
    });
    expect(after.status).toBe('succeeded');
  });

  it('rotation: the new secret signs, and the old one beside it (two v1 signatures)', async () => {
    const r = await receiver();
    const made = await createWebhook({ url: r.url, events: QUIET });
    const rotated = await api.post(`/v1/webhooks/${made.id}/rotate_secret`, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(made.secret);
    await api.post(`/v1/webhooks/${made.id}/ping`, { token: admin });
    await waitFor('the ping', async () => r.received.length >= 1, 10_000, 20);
    const header = r.received[0]!.headers['slipway-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(signedBy(header, rotated.body.secret, r.received[0]!.body)).toBe(true);
    expect(signedBy(header, made.secret, r.received[0]!.body)).toBe(true);
  });

  it('a slow receiver times out, and the attempt is logged as such and retried', async () => {
    const r = await receiver((i) => (i === 0 ? 'hang' : 200));
    const { id } = await createWebhook({ url: r.url, events: QUIET });
    await api.post(`/v1/webhooks/${id}/ping`, { token: admin });
    const delivered = await waitFor('the retry after the timeout', async () => {
      const res = await api.get(`/v1/webhooks/${id}/deliveries`, { token: admin });
      return res.body.data[0]?.status === 'succeeded' && res.body.data[0];
    });
    expect(delivered.attempts[0]).toMatchObject({ status_code: null, error: 'timed out after 500 ms' });
    expect(delivered.attempts[0].duration_ms).toBeGreaterThanOrEqual(450);
    expect(delivered.attempts[1]).toMatchObject({ status_code: 200 });
  });

  it('redirects are not followed; a disabled endpoint gets nothing; redeliver of a pending delivery is 409', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const { id } = await createWebhook({ url: r.url, events: QUIET });
    const ping = (await api.post(`/v1/webhooks/${id}/ping`, { token: admin })).body;
    await waitFor('the first attempt', async () => r.received.length >= 1, 10_000, 20);
    expectRefused(await api.post(`/v1/webhooks/${id}/deliveries/${ping.id}/redeliver`, { token: admin }), 409, 'conflict');
    await api.patch(`/v1/webhooks/${id}`, { token: admin, body: { status: 'disabled' } });
    expectRefused(await api.post(`/v1/webhooks/${id}/ping`, { token: admin }), 409, 'conflict');
    expect(target.received).toHaveLength(0);
    const log = await waitFor('the delivery to be dropped', async () => {
      const res = await api.get(`/v1/webhooks/${id}/deliveries`, { token: admin });
      return res.body.data[0]?.status === 'failed' && res.body.data[0];
    });
    expect(log.attempts[0]).toMatchObject({ status_code: 302 });
  });
});

describe('SSRF', () => {
  const strict = useApiServer({ overrides: { webhookAllowLoopback: false } });
  const refused = [
    'http://10.0.0.1/',
    'https://10.0.0.1/',
    'https://192.168.1.20/hook',
    'https://172.16.5.4/',
    'http://169.254.169.254/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'http://[::1]/',
    'https://[::1]/',
    'https://127.0.0.1/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://0.0.0.0/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://localhost/',
    'https://2130706433/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::a00:1]/',
    'https://[2002:a00:1::]/',
    'https://100.127.255.254/',
    'https://198.18.0.1/',
  ];

  it.each(refused)('%s → 422 at registration', async (url) => {
    const res = await strict.api.post('/v1/webhooks', { token: strict.adminToken, body: { url, events: ['*'] } });
    expectRefused(res, 422, 'validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'url', message: expect.any(String) }]);
  });

  it('a public address is accepted (https only); http to it is not', async () => {
    const made = await strict.api.post('/v1/webhooks', { token: strict.adminToken, body: { url: 'https://93.184.215.14/hooks', events: QUIET } });
    expect(made.status).toBe(201);
    expect((await strict.api.delete(`/v1/webhooks/${made.body.id}`, { token: strict.adminToken })).status).toBe(204);
    expectRefused(await strict.api.post('/v1/webhooks', { token: strict.adminToken, body: { url: 'http://93.184.215.14/hooks', events: QUIET } }), 422, 'validation_failed');
  });

  it('http to loopback is refused when loopback is not allowed, and so is changing a URL to a private address', async () => {
    const r = await receiver();
    expectRefused(await strict.api.post('/v1/webhooks', { token: strict.adminToken, body: { url: r.url, events: ['*'] } }), 422, 'validation_failed');
    const made = await createWebhook({ url: r.url, events: ['*'] });
    expectRefused(await api.patch(`/v1/webhooks/${made.id}`, { token: admin, body: { url: 'http://10.1.2.3/' } }), 422, 'validation_failed');
  });
});
