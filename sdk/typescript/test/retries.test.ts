import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, ErrorCode, RateLimitError, RequestAbortedError, Slipway, SlipwayError, TimeoutError } from '../src/index.ts';
import { harness, recordingFetch, unique } from './support/env.ts';
import { startHarness, type Harness } from './support/harness.ts';

describe('a retried POST creates exactly once (Idempotency-Key)', () => {
  it('the connection drops after the server created the deployment; the retry gets that same deployment', async () => {
    const info = harness();
    const recorder = recordingFetch();
    let dropped = 0;
    // The request reaches the real server and is processed; its response is lost on the way back.
    const flaky: typeof fetch = async (input, init) => {
      const response = await recorder.fetch(input, init);
      if (init?.method === 'POST' && dropped === 0) {
        dropped += 1;
        await response.body?.cancel();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: flaky, maxRetries: 2, initialRetryDelay: 10 });
    const branch = unique('retried');
    const deployment = await ci.deployments.create(info.api_key.project_id, { environment: 'production', branch });

    const posts = recorder.calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    const key = posts[0]!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers.get('idempotency-key')).toBe(key);

    const reader = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key });
    const withBranch = [];
    for await (const d of reader.deployments.listAll(info.api_key.project_id, { branch, per_page: 100 })) withBranch.push(d.id);
    expect(withBranch).toEqual([deployment.id]);
  });

  it('sends a fresh key per create, none on PATCH/GET, and none at all with idempotencyKey: false', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: recorder.fetch });
    const a = await ci.deployments.create(info.api_key.project_id, { environment: 'dev', branch: unique('a') });
    await ci.deployments.create(info.api_key.project_id, { environment: 'dev', branch: unique('b') }, { idempotencyKey: 'my-own-key-1' });
    await ci.deployments.update(info.api_key.project_id, a.id, { status: 'canceled' });
    await ci.deployments.get(info.api_key.project_id, a.id);
    expect(recorder.calls.map((c) => c.headers.get('idempotency-key'))).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), 'my-own-key-1', null, null]);

    const off = recordingFetch();
    const noKeys = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: off.fetch, idempotencyKey: false });
    await noKeys.deployments.create(info.api_key.project_id, { environment: 'dev', branch: unique('c') });
    expect(off.calls[0]!.headers.get('idempotency-key')).toBeNull();
  });
});

describe('429: retried after Retry-After (a harness with a limit of 3 an hour whose window ends 6 s after start)', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness(['--rate-limit', '3', '--rate-limit-reset-in', '6']);
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('raises RateLimitError with retryAfter when retries are off, then waits Retry-After and succeeds', async () => {
    const { info } = limited;
    const noRetry = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, maxRetries: 0 });
    for (let i = 0; i < 3; i += 1) await noRetry.projects.get(info.project.id);
    const err = await noRetry.projects.get(info.project.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = (err as RateLimitError).retryAfter!;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(6);

    // A Retry-After longer than the client will wait is not waited for.
    const impatient = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, maxRetries: 3, maxRetryAfter: 0 });
    await expect(impatient.projects.get(info.project.id)).rejects.toBeInstanceOf(RateLimitError);

    const recorder = recordingFetch();
    const sent: number[] = [];
    const timed: typeof fetch = (input, init) => {
      sent.push(Date.now());
      return recorder.fetch(input, init);
    };
    const patient = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, maxRetries: 2, fetch: timed });
    const project = await patient.projects.get(info.project.id);
    expect(project.id).toBe(info.project.id);
    expect(recorder.calls).toHaveLength(2);
    // The retry went out no sooner than the server asked (whole seconds, rounded up by the server).
    expect(sent[1]! - sent[0]!).toBeGreaterThanOrEqual((retryAfter - 1) * 1000);
  });
});

describe('503: retried after Retry-After while the database is down (a harness of its own)', () => {
  let outage: Harness;
  beforeAll(async () => {
    outage = await startHarness();
  });
  afterAll(async () => {
    await outage?.stop();
  });

  it('the create answered 503 is sent again with the same Idempotency-Key once the database is back, and creates once', async () => {
    const { info } = outage;
    const recorder = recordingFetch();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, maxRetries: 3, fetch: recorder.fetch });
    await ci.projects.get(info.api_key.project_id);
    expect(await outage.command('database stop')).toEqual({ database: 'stopped' });
    const branch = unique('during-outage');
    const creating = ci.deployments.create(info.api_key.project_id, { environment: 'production', branch });
    const answered503 = async () => {
      for (let i = 0; i < 300 && !recorder.calls.some((c) => c.status === 503); i += 1) await new Promise((r) => setTimeout(r, 100));
    };
    await answered503();
    expect(await outage.command('database start')).toEqual({ database: 'started' });
    const deployment = await creating;

    const posts = recorder.calls.filter((c) => c.method === 'POST');
    expect(posts[0]!.status).toBe(503);
    expect(posts.at(-1)!.status).toBe(201);
    expect(new Set(posts.map((c) => c.headers.get('idempotency-key'))).size).toBe(1);
    const withBranch = await ci.deployments.list(info.api_key.project_id, { branch });
    expect(withBranch.data.map((d) => d.id)).toEqual([deployment.id]);
  });
});

/** A loopback port nothing listens on (connections are refused). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

describe('timeouts, cancellation and network errors', () => {
  // A peer that accepts connections and never answers: what a hung server looks like to a client.
  let silent: net.Server;
  let silentUrl: string;
  const sockets = new Set<net.Socket>();
  beforeAll(async () => {
    silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('abandons an attempt after `timeout` ms and retries it, then raises TimeoutError', async () => {
    const recorder = recordingFetch();
    const client = new Slipway({ baseUrl: silentUrl, apiKey: 'slw_x', timeout: 200, maxRetries: 1, initialRetryDelay: 10, fetch: recorder.fetch });
    const err = await client.projects.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'timeout', status: null });
    expect(recorder.calls).toHaveLength(2);
  });

  it("the caller's AbortSignal ends the call at once, without retrying: RequestAbortedError request_aborted, the reason kept as cause", async () => {
    const recorder = recordingFetch();
    const client = new Slipway({ baseUrl: silentUrl, apiKey: 'slw_x', maxRetries: 3, fetch: recorder.fetch });
    const controller = new AbortController();
    const pending = client.projects.list({}, { signal: controller.signal }).catch((e: unknown) => e);
    const reason = new Error('the user closed the page');
    setTimeout(() => controller.abort(reason), 100);
    const err = await pending;
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(err).toBeInstanceOf(SlipwayError);
    expect(err).toMatchObject({ code: ErrorCode.RequestAborted, status: null, name: 'RequestAbortedError' });
    expect((err as SlipwayError).cause).toBe(reason);
    expect(recorder.calls).toHaveLength(1);

    // Already aborted: nothing is sent; the default reason (a DOMException AbortError) is the cause.
    const already = await client.projects.list({}, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(already).toBeInstanceOf(RequestAbortedError);
    expect(((already as SlipwayError).cause as Error).name).toBe('AbortError');
    expect(recorder.calls).toHaveLength(1);

    // Aborted during a backoff wait between two attempts (a POST with a key, to a closed port).
    const closed = new Slipway({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: 'slw_x', maxRetries: 5, initialRetryDelay: 60_000, maxRetryDelay: 60_000 });
    const waiting = new AbortController();
    const inBackoff = closed.projects.create({ name: 'x' }, { signal: waiting.signal }).catch((e: unknown) => e);
    setTimeout(() => waiting.abort(), 200);
    expect(await inBackoff).toMatchObject({ code: 'request_aborted', status: null });

    // A signal made by AbortSignal.timeout(ms) is a timeout, not an abort.
    const timedOut = await client.projects.list({}, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(timedOut).toMatchObject({ code: ErrorCode.Timeout, status: null });
  });

  it('a per-call timeout overrides the client one, and maxRetries: 0 sends one attempt', async () => {
    const recorder = recordingFetch();
    const client = new Slipway({ baseUrl: silentUrl, apiKey: 'slw_x', timeout: 60_000, maxRetries: 3, fetch: recorder.fetch });
    const err = await client.projects.get('proj_x', { timeout: 150, maxRetries: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'timeout', status: null });
    expect(recorder.calls).toHaveLength(1);
  });

  it('retries network errors with backoff (GET, POST with a key) but never resends a POST without one', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const recorder = recordingFetch();
    const client = new Slipway({ baseUrl: closed, apiKey: 'slw_x', maxRetries: 2, initialRetryDelay: 5, fetch: recorder.fetch });
    await expect(client.projects.list()).rejects.toBeInstanceOf(ConnectionError);
    expect(recorder.calls).toHaveLength(3);
    await expect(client.projects.create({ name: 'x' })).rejects.toMatchObject({ code: ErrorCode.NetworkError, status: null });
    expect(recorder.calls).toHaveLength(6);
    const noKeys = new Slipway({ baseUrl: closed, apiKey: 'slw_x', maxRetries: 2, initialRetryDelay: 5, idempotencyKey: false, fetch: recorder.fetch });
    await expect(noKeys.projects.create({ name: 'x' })).rejects.toBeInstanceOf(ConnectionError);
    expect(recorder.calls).toHaveLength(7);
  });
});
