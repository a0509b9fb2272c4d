import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { loadOrCreateKeys } from '../../src/keys/keystore.ts';
import { newId } from '../../src/lib/ids.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { buildEventLog, buildServices } from '../support/services.ts';
import { createSecretBox } from '../../src/keys/secretBox.ts';
import type { WebhookService } from '../../src/services/webhooks.ts';
import { useTestDatabase } from '../support/fixtures.ts';
import { spawnNode, waitFor, type NodeProcess } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { realWaits } from '../support/realWaits.ts';

/**
 * The delivery queue survives the service: `npm start` processes are killed (SIGKILL) with a delivery
 * pending, and the next one delivers it once.
 */

const database = useTestDatabase();
let keysDir: string, dataDir: string, webhooks: WebhookService;
const started: NodeProcess[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  keysDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-hooks-keys-'));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-hooks-data-'));
  const keys = await loadOrCreateKeys(keysDir);
  // Registered as the API would (same service, same secret box); the queue is then the only link to the processes.
  webhooks = buildServices(database.repos, { secretBox: createSecretBox(keys.data) }).webhooks;
});
afterEach(async () => {
  for (const proc of started.splice(0)) {
    proc.child.kill('SIGTERM');
    await proc.exited(10_000).catch(() => proc.kill());
  }
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await rm(keysDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
});

async function startSlipway(env: Record<string, string>): Promise<NodeProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnNode(['src/main.ts'], {
    PORT: String(port),
    PUBLIC_URL: url,
    LOG_LEVEL: 'info',
    MONGODB_URI: inject('mongodbUri'),
    MONGODB_DB: database.db.databaseName,
    KEYS_DIR: keysDir,
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    ...env,
  });
  started.push(proc);
  await waitFor(`${url}/readyz`, async () => {
    if (proc.child.exitCode !== null) throw new Error(`exited: ${proc.stderr()}${proc.stdout()}`);
    const res = await fetch(`${url}/readyz`);
    await res.body?.cancel();
    return res.status === 200;
  }, 30_000);
  return proc;
}

async function kill(proc: NodeProcess): Promise<void> {
  proc.child.kill('SIGKILL');
  await proc.exited(10_000);
}

/** A webhook of a fresh account, and one event for it queued (as any change through the API queues it). */
async function pendingDelivery(r: Receiver): Promise<{ webhookId: string; deliveryId: () => Promise<string> }> {
  const accountId = newId('account');
  const operator = systemPrincipal(accountId);
  const { webhook } = await webhooks.create(operator, { url: r.url, events: ['project.created'] });
  await buildEventLog(database.repos).record('project.created', operator, { account_id: accountId }, { name: 'queued' });
  const deliveryId = async () => (await database.repos.webhookDeliveries.collection.findOne({ webhook_id: webhook._id }))!._id;
  return { webhookId: webhook._id, deliveryId };
}

describe('a delivery pending when the service dies', () => {
  it('waiting for a retry: after a restart it is delivered once', async () => {
    const r = await startReceiver((i) => (i === 0 ? 500 : 200));
    receivers.push(r);
    const env = { WEBHOOK_RETRY_BASE_MS: '1500', WEBHOOK_TIMEOUT_MS: '1000' };
    const first = await startSlipway(env);
    const { deliveryId } = await pendingDelivery(r);
    const id = await deliveryId();
    await waitFor('the first attempt to be logged', async () => (await database.repos.webhookDeliveries.findById(id))?.attempts.length === 1, 10_000, 20);
    await kill(first);
    expect(r.received).toHaveLength(1);
    expect(await database.repos.webhookQueue.findById(id)).toMatchObject({ _id: id });

    await startSlipway(env);
    await waitFor('the retry', async () => r.received.length >= 2, 15_000, 20);
    await realWaits.childProcess(1000);
    expect(r.received.map((q) => [q.headers['slipway-delivery'], q.status])).toEqual([
      [id, 500],
      [id, 200],
    ]);
    const delivery = await waitFor('the log to say succeeded', async () => {
      const doc = await database.repos.webhookDeliveries.findById(id);
      return doc?.status === 'succeeded' && doc;
    });
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([500, 200]);
    expect(await database.repos.webhookQueue.findById(id)).toBeNull();
  });

  it('killed in the middle of an attempt: once its lease ends, the next instance delivers it once', async () => {
    const r = await startReceiver((i) => (i === 0 ? 'hang' : 200));
    receivers.push(r);
    // A lease lasts twice the timeout plus 5 s: 6 s here.
    const env = { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '500' };
    const first = await startSlipway(env);
    const { deliveryId } = await pendingDelivery(r);
    await waitFor('the attempt to start', async () => r.received.length >= 1, 10_000, 20);
    await kill(first);
    const id = await deliveryId();
    expect((await database.repos.webhookDeliveries.findById(id))!.attempts).toHaveLength(0);

    await startSlipway(env);
    await waitFor('the delivery after the lease', async () => r.received.length >= 2, 20_000, 50);
    await realWaits.childProcess(1000);
    expect(r.received.map((q) => q.headers['slipway-delivery'])).toEqual([id, id]);
    expect(r.received[1]!.status).toBe(200);
    const delivery = await waitFor('the log to say succeeded', async () => {
      const doc = await database.repos.webhookDeliveries.findById(id);
      return doc?.status === 'succeeded' && doc;
    });
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([200]);
  });
});

describe('the address is checked at each connection', () => {
  it('a URL registered while loopback was allowed is not connected to by an instance that refuses loopback', async () => {
    const r = await startReceiver();
    receivers.push(r);
    await startSlipway({ WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_RETRY_BASE_MS: '60000' });
    const { deliveryId } = await pendingDelivery(r);
    const id = await deliveryId();
    const delivery = await waitFor('the refused attempt', async () => {
      const doc = await database.repos.webhookDeliveries.findById(id);
      return doc !== null && doc.attempts.length > 0 && doc;
    });
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/^refused: .*loopback/) });
    expect(r.received).toHaveLength(0);
  });
});
