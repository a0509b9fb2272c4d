import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { NotFoundError, Slipway, WebhookSignatureError, constructWebhookEvent, verifyWebhookSignature, type WebhookDelivery, type WebhookPayload } from '../src/index.ts';
import { harness, login, recordingFetch, unique } from './support/env.ts';

// Signed the way PRODUCT §7 and the server's webhook signer define it, with Node's own HMAC.
const secret = `whsec_${randomBytes(32).toString('base64url')}`;
const sign = (key: string, t: number, body: string) => createHmac('sha256', key).update(`${t}.${body}`, 'utf8').digest('hex');
const now = Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: 'evt_1', type: 'deployment.status_changed', data: { status: 'succeeded', note: 'déployé ✓' } });

describe('webhook signature verification (Slipway-Signature: t=…,v1=…)', () => {
  it('accepts the right signature, as a string or as raw bytes, and during a rotation either secret', async () => {
    const header = `t=${now},v1=${sign(secret, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header, secret })).toBe(true);
    expect(await verifyWebhookSignature({ payload: new TextEncoder().encode(body), header, secret })).toBe(true);
    const previous = `whsec_${randomBytes(32).toString('base64url')}`;
    const rotating = `t=${now},v1=${sign(secret, now, body)},v1=${sign(previous, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header: rotating, secret: previous })).toBe(true);
    expect(await constructWebhookEvent({ payload: body, header, secret })).toEqual(JSON.parse(body));
    // Typed as the document's WebhookPayload unless the caller names another type.
    expectTypeOf(constructWebhookEvent({ payload: body, header, secret })).resolves.toEqualTypeOf<WebhookPayload>();
    expectTypeOf(constructWebhookEvent<{ id: string }>({ payload: body, header, secret })).resolves.toEqualTypeOf<{ id: string }>();
  });

  it('accepts the raw body as a Node.js Buffer (node:http, express.raw, Fastify), also a view at an offset and one cut inside a character', async () => {
    const header = `t=${now},v1=${sign(secret, now, body)}`;
    const buffer = Buffer.from(body, 'utf8');
    expect(await verifyWebhookSignature({ payload: buffer, header, secret })).toBe(true);
    expect(await constructWebhookEvent({ payload: buffer, header, secret })).toEqual(JSON.parse(body));
    // A Buffer is often a view into a larger memory block (Node's pool, a parser's chunk): only its bytes count.
    const view = Buffer.concat([Buffer.from('junk before'), buffer, Buffer.from('junk after')]).subarray(11, 11 + buffer.length);
    expect(view.byteOffset).toBeGreaterThan(0);
    expect(await verifyWebhookSignature({ payload: view, header, secret })).toBe(true);
    // Chunks as a socket delivers them may split a multi-byte character: joined as bytes they verify;
    // decoded one by one (a common mistake) the text differs and the signature does not.
    const cut = buffer.indexOf(Buffer.from('é')) + 1;
    const chunks = [buffer.subarray(0, cut), buffer.subarray(cut)];
    expect(await verifyWebhookSignature({ payload: Buffer.concat(chunks), header, secret })).toBe(true);
    expect(await verifyWebhookSignature({ payload: chunks.map((c) => c.toString('utf8')).join(''), header, secret })).toBe(false);
    // Any change to the bytes is refused.
    const altered = Buffer.from(buffer);
    altered.writeUInt8(altered.readUInt8(altered.length - 2) ^ 1, altered.length - 2);
    expect(await verifyWebhookSignature({ payload: altered, header, secret })).toBe(false);
  });

  it('refuses a wrong secret, an altered body, an old or future timestamp, and a missing or malformed header', async () => {
    const header = `t=${now},v1=${sign(secret, now, body)}`;
    expect(await verifyWebhookSignature({ payload: body, header, secret: `${secret}x` })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body.replace('succeeded', 'failed'), header, secret })).toBe(false);
    // The window is measured from the verifier's clock, given here (`now`), not from however long the file has run.
    const old = now - 301;
    expect(await verifyWebhookSignature({ payload: body, header: `t=${old},v1=${sign(secret, old, body)}`, secret, now })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header: `t=${old},v1=${sign(secret, old, body)}`, secret, now, toleranceSeconds: 600 })).toBe(true);
    const future = now + 301;
    expect(await verifyWebhookSignature({ payload: body, header: `t=${future},v1=${sign(secret, future, body)}`, secret, now })).toBe(false);
    expect(await verifyWebhookSignature({ payload: body, header: `t=${future},v1=${sign(secret, future, body)}`, secret, now: future - 300 })).toBe(true);
    // The timestamp is signed: moving it invalidates the signature.
    expect(await verifyWebhookSignature({ payload: body, header: `t=${now + 1},v1=${sign(secret, now, body)}`, secret })).toBe(false);
    for (const bad of [undefined, null, '', `v1=${sign(secret, now, body)}`, `t=${now}`, `t=${now},v1=zz`, `t=abc,v1=${sign(secret, now, body)}`]) {
      expect(await verifyWebhookSignature({ payload: body, header: bad, secret }), String(bad)).toBe(false);
    }
    await expect(constructWebhookEvent({ payload: body, header: `t=${now},v1=${'0'.repeat(64)}`, secret })).rejects.toBeInstanceOf(WebhookSignatureError);
  });
});

/** One delivery that reached the receiver, checked with the SDK's own `constructWebhookEvent`. */
interface Received {
  deliveryId: string | undefined;
  eventType: string | undefined;
  event?: WebhookPayload;
  error?: unknown;
}

/**
 * A real HTTP server on loopback that Slipway delivers to (the harness allows loopback URLs). It
 * verifies every delivery's raw body against each secret it trusts, and answers 204 or 401.
 */
async function startReceiver() {
  const secrets: string[] = [];
  const queue: Received[] = [];
  const waiting: ((r: Received) => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        // The raw body as Node hands it over: a Buffer, passed as it is.
        const payload = Buffer.concat(chunks);
        const header = req.headers['slipway-signature'] as string | undefined;
        const got: Received = { deliveryId: req.headers['slipway-delivery'] as string | undefined, eventType: req.headers['slipway-event'] as string | undefined };
        try {
          if (secrets.length === 0) throw new Error('no secret');
          // During a rotation the header carries a v1 per secret: each must verify.
          for (const secret of secrets) got.event = await constructWebhookEvent<WebhookPayload>({ payload, header, secret });
        } catch (error) {
          got.error = error;
        }
        res.writeHead(got.error ? 401 : 204).end();
        const waiter = waiting.shift();
        if (waiter) waiter(got);
        else queue.push(got);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/slipway`,
    trust: (...keys: string[]) => secrets.splice(0, secrets.length, ...keys),
    /** The next delivery, within 30 s. */
    next: () =>
      new Promise<Received>((resolve, reject) => {
        const queued = queue.shift();
        if (queued) return resolve(queued);
        const timer = setTimeout(() => reject(new Error('no delivery reached the receiver within 30 s')), 30_000);
        waiting.push((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('client.webhooks against the live server', () => {
  let slipway: Slipway;
  beforeAll(async () => {
    slipway = new Slipway({ baseUrl: harness().base_url, accessToken: (await login(harness(), 'read write admin')).accessToken, maxRetries: 0 });
  });

  it('create (secret once), list over more than one page, get, update, rotate the secret, delete', async () => {
    const tag = unique('hooks');
    const created = [];
    // Loopback URLs (the harness allows them); nothing listens there, and nothing is pinged.
    for (let i = 0; i < 3; i += 1) created.push(await slipway.webhooks.create({ url: `http://127.0.0.1:9/${tag}/${i}`, events: ['deployment.status_changed'], description: tag }));
    for (const w of created) expect(w).toMatchObject({ status: 'enabled', description: tag, secret: expect.stringMatching(/^whsec_/) });

    const page = await slipway.webhooks.list({ per_page: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.pagination.total).toBeGreaterThanOrEqual(3);
    const recorder = recordingFetch();
    const counted = new Slipway({ baseUrl: harness().base_url, accessToken: (await login(harness(), 'read write admin')).accessToken, fetch: recorder.fetch });
    const all = [];
    for await (const w of counted.webhooks.listAll({ per_page: 2 })) all.push(w);
    expect(recorder.calls.length).toBeGreaterThanOrEqual(2);
    for (const w of created) expect(all.map((x) => x.id)).toContain(w.id);
    expect(all.every((w) => !('secret' in w))).toBe(true);

    const got = await slipway.webhooks.get(created[0]!.id);
    expect(got).toMatchObject({ id: created[0]!.id, url: created[0]!.url, events: ['deployment.status_changed'] });
    expect('secret' in got).toBe(false);
    const updated = await slipway.webhooks.update(created[0]!.id, { events: ['*'], status: 'disabled', description: null });
    expect(updated).toMatchObject({ events: ['*'], status: 'disabled', description: null });

    const rotated = await slipway.webhooks.rotateSecret(created[1]!.id);
    expect(rotated.id).toBe(created[1]!.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created[1]!.secret);

    for (const w of created) await slipway.webhooks.delete(w.id);
    await expect(slipway.webhooks.get(created[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a ping and a deployment status change reach a loopback receiver, signed with the secret returned at creation; deliveries are listed and redelivered', async () => {
    const receiver = await startReceiver();
    const hook = await slipway.webhooks.create({ url: receiver.url, events: ['deployment.status_changed'] });
    try {
      receiver.trust(hook.secret!);
      const ping = await slipway.webhooks.ping(hook.id);
      expect(ping).toMatchObject({ webhook_id: hook.id, event_type: 'webhook.ping', status: 'pending' });
      const pinged = await receiver.next();
      expect(pinged.error).toBeUndefined();
      expect(pinged).toMatchObject({ deliveryId: ping.id, eventType: 'webhook.ping', event: { id: ping.event_id, type: 'webhook.ping' } });

      // A deployment moved by CI with an API key: the endpoint hears of it. Other test files change
      // deployments of the same account meanwhile, so the receiver looks for this one.
      const info = harness();
      const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key });
      const deployment = await ci.deployments.create(info.api_key.project_id, { environment: 'staging', branch: unique('hooked') });
      await ci.deployments.update(info.api_key.project_id, deployment.id, { status: 'building' });
      let changed: Received | undefined;
      for (let i = 0; i < 50 && !changed; i += 1) {
        const r = await receiver.next();
        expect(r.error).toBeUndefined();
        if (r.event?.data.deployment_id === deployment.id) changed = r;
      }
      expect(changed).toMatchObject({ eventType: 'deployment.status_changed', event: { type: 'deployment.status_changed', project_id: info.api_key.project_id, data: { from: 'queued', to: 'building' } } });

      // After a rotation both secrets sign (a v1 each) for a while.
      const rotated = await slipway.webhooks.rotateSecret(hook.id);
      receiver.trust(hook.secret!, rotated.secret!);
      const second = await slipway.webhooks.ping(hook.id);
      let secondGot: Received | undefined;
      for (let i = 0; i < 50 && !secondGot; i += 1) {
        const r = await receiver.next();
        expect(r.error).toBeUndefined();
        if (r.deliveryId === second.id) secondGot = r;
      }
      expect(secondGot?.event?.type).toBe('webhook.ping');

      // The log, newest first, over pages of one: wait (bounded) until the last delivery is recorded as succeeded.
      let log: WebhookDelivery[] = [];
      for (let i = 0; i < 100; i += 1) {
        log = [];
        for await (const d of slipway.webhooks.listAllDeliveries(hook.id, { per_page: 1 })) log.push(d);
        if (log.length >= 3 && log.every((d) => d.status === 'succeeded')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Newest first. Other files move deployments of this account meanwhile, so newer deliveries may
      // stand before the second ping: check the order, not the first place.
      const created = log.map((d) => Date.parse(d.created_at));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect(log.map((d) => d.id)).toContain(second.id);
      expect(log.map((d) => d.id)).toContain(ping.id);
      expect(log.find((d) => d.id === ping.id)).toMatchObject({ status: 'succeeded', attempt_count: 1, attempts: [{ attempt: 1, status_code: 204 }] });
      const first = await slipway.webhooks.listDeliveries(hook.id, { per_page: 1 });
      expect(first.data).toHaveLength(1);
      expect(first.pagination.total).toBeGreaterThanOrEqual(log.length);

      // A redelivery: the same Slipway-Delivery id and event, signed anew.
      const again = await slipway.webhooks.redeliver(hook.id, ping.id);
      expect(again).toMatchObject({ id: ping.id, status: 'pending' });
      let redelivered: Received | undefined;
      for (let i = 0; i < 50 && !redelivered; i += 1) {
        const r = await receiver.next();
        expect(r.error).toBeUndefined();
        if (r.deliveryId === ping.id) redelivered = r;
      }
      expect(redelivered?.event?.id).toBe(ping.event_id);
    } finally {
      await slipway.webhooks.delete(hook.id);
      await receiver.close();
    }
  });
});
