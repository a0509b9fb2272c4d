import { beforeAll, describe, expect, it } from 'vitest';
import { Follower } from '../support/eventStream.ts';
import { Api } from '../support/api.ts';
import { race } from '../support/concurrency.ts';
import { createProject, expectRefused, useTwoInstances } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { realWaits } from '../support/realWaits.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

/*
 * Deployment logs (docs/product.md §10) on two instances of one deployment: appends numbered densely
 * whatever the writers, Idempotency-Key, limits, and following with Server-Sent Events.
 */
const MAX_LINES = 5000;
const two = useTwoInstances({
  overrides: {
    logMaxLines: MAX_LINES,
    logPollIntervalMs: 100,
    logHeartbeatMs: 300,
    logStreamRecheckMs: 100,
    logStreamStallMs: 500,
    principalCacheSeconds: 0.5,
    revocationRefreshSeconds: 0.2,
    webhookPollIntervalMs: 60_000,
    corsOrigins: ['https://app.example.com'],
  },
});
let first: TestServer, second: TestServer, api: Api, api2: Api, tokens: Tokens, owner: TestUser, token: string;
beforeAll(async () => {
  ({ first, second } = two);
  api = await Api.connect(first.url);
  api2 = await Api.connect(second.url);
  tokens = new Tokens(first);
  owner = await tokens.user('owner');
  token = await tokens.accessToken(owner, 'admin');
}, 120_000);

interface Place {
  pid: string;
  did: string;
  path: string;
}

async function newDeployment(): Promise<Place> {
  const pid = (await createProject(api, token)).id as string;
  const res = await api.post(`/v1/projects/${pid}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
  expect(res.status).toBe(201);
  return { pid, did: res.body.id, path: `/v1/projects/${pid}/deployments/${res.body.id}/logs` };
}

const lines = (texts: string[], stream?: string) => ({ lines: texts.map((text) => ({ text, ...(stream ? { stream } : {}) })) });

async function append(on: Api, place: Place, texts: string[], headers: Record<string, string> = {}, as = token) {
  return await on.post(place.path, { token: as, body: lines(texts), headers });
}

/** Every line of the log, read page by page. */
async function readAll(place: Place, limit = 1000): Promise<{ seq: number; stream: string; text: string }[]> {
  const all = [];
  for (let after = 0; ; ) {
    const res = await api.get(`${place.path}?after=${after}&limit=${limit}`, { token });
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    if (res.body.data.length === 0) return all;
    after = res.body.next_after;
  }
}

async function finish(place: Place) {
  expect((await api.patch(`/v1/projects/${place.pid}/deployments/${place.did}`, { token, body: { status: 'canceled' } })).status).toBe(200);
}

describe('append and read', () => {
  it('202 with the range; lines read back in order with their streams', async () => {
    const place = await newDeployment();
    const res = await api.post(place.path, { token, body: { lines: [{ text: 'Step 1/3' }, { text: 'warning: x', stream: 'stderr' }, { text: 'done', timestamp: '2026-01-15T09:30:00.000Z' }] } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ first_seq: 1, last_seq: 3 });
    const next = await append(api2, place, ['four']);
    expect(next.body).toEqual({ first_seq: 4, last_seq: 4 });
    const read = await api.get(`${place.path}?limit=2`, { token });
    expect(read.body).toEqual({
      data: [
        { seq: 1, stream: 'stdout', text: 'Step 1/3', timestamp: expect.stringMatching(/Z$/) },
        { seq: 2, stream: 'stderr', text: 'warning: x', timestamp: expect.stringMatching(/Z$/) },
      ],
      next_after: 2,
      complete: false,
    });
    const rest = await api.get(`${place.path}?after=2`, { token });
    expect(rest.body.data.map((l: { seq: number; text: string }) => [l.seq, l.text])).toEqual([[3, 'done'], [4, 'four']]);
    expect(rest.body.data[0].timestamp).toBe('2026-01-15T09:30:00.000Z');
    expect(rest.body.complete).toBe(false);
    await finish(place);
    expect((await api.get(`${place.path}?after=2`, { token })).body.complete).toBe(true);
    expect((await api.get(`${place.path}?after=2&limit=1`, { token })).body.complete).toBe(false);
  });

  it('8 writers × 50 requests on two instances: seqs 1..N, no gap, no duplicate, each request one contiguous range', async () => {
    const place = await newDeployment();
    const ranges = await race(8, async (writer) => {
      const mine: { first: number; last: number; texts: string[] }[] = [];
      for (let batch = 0; batch < 50; batch++) {
        const texts = Array.from({ length: 1 + ((writer + batch) % 4) }, (_, i) => `w${writer} b${batch} l${i}`);
        const res = await append(writer % 2 ? api2 : api, place, texts);
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        mine.push({ first: res.body.first_seq, last: res.body.last_seq, texts });
      }
      return mine;
    });
    const all = await readAll(place, 777);
    const n = ranges.flat().reduce((sum, r) => sum + r.texts.length, 0);
    expect(all.map((l) => l.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    for (const range of ranges.flat()) {
      expect(range.last - range.first + 1).toBe(range.texts.length);
      expect(all.slice(range.first - 1, range.last).map((l) => l.text)).toEqual(range.texts);
    }
  }, 120_000);

  it('Idempotency-Key: a replay (and a race of the same request on both instances) adds nothing', async () => {
    const place = await newDeployment();
    const headers = { 'Idempotency-Key': `logs-${Date.now()}` };
    const answers = await race(6, (i) => append(i % 2 ? api2 : api, place, ['once', 'only'], headers));
    const ok = answers.filter((r) => r.status === 202);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of answers) if (r.status !== 202) expectRefused(r, 409, 'conflict');
    for (const r of ok) expect(r.body).toEqual({ first_seq: 1, last_seq: 2 });
    const again = await append(api, place, ['once', 'only'], headers);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ first_seq: 1, last_seq: 2 });
    expect((await readAll(place)).map((l) => l.text)).toEqual(['once', 'only']);
    expectRefused(await append(api, place, ['other'], headers), 422, 'idempotency_key_reused');
  });

  it('a secret configuration value in a line is stored as ***; short values are left alone', async () => {
    const place = await newDeployment();
    const secret = `s3cr3t-${Date.now()}-value`;
    for (const [key, value] of [['DB_PASSWORD', secret], ['PIN', '1234567']])
      expect((await api.post(`/v1/projects/${place.pid}/configurations`, { token, body: { environment: 'staging', key, value, secret: true } })).status).toBe(201);
    expect((await append(api2, place, [`connecting with ${secret}@db`, 'pin 1234567', `${secret}${secret}`])).status).toBe(202);
    expect((await readAll(place)).map((l) => l.text)).toEqual(['connecting with ***@db', 'pin 1234567', '******']);
    const stored = JSON.stringify(await first.repos.deploymentLogs.collection.find({ deployment_id: place.did }).toArray());
    expect(stored).not.toContain(secret);
  });
});

describe('limits and refusals', () => {
  it('422 for too many lines, a line over 8 KiB, an unknown stream; 413 over 1 MiB; 1 MiB of lines is taken', async () => {
    const place = await newDeployment();
    const tooMany = await append(api, place, Array.from({ length: 1001 }, () => 'x'));
    expectRefused(tooMany, 422, 'validation_failed');
    expectRefused(await append(api, place, ['é'.repeat(4097)]), 422, 'validation_failed');
    expectRefused(await api.post(place.path, { token, body: { lines: [{ text: 'x', stream: 'stdin' }] } }), 422, 'validation_failed');
    expectRefused(await api.post(place.path, { token, body: { lines: [] } }), 422, 'validation_failed');
    expectRefused(await append(api, place, Array.from({ length: 130 }, () => 'x'.repeat(8192))), 413, 'payload_too_large');
    const big = await append(api, place, Array.from({ length: 1000 }, () => 'y'.repeat(1000)));
    expect(big.status).toBe(202);
    expect(big.body).toEqual({ first_seq: 1, last_seq: 1000 });
  });

  it('write scope to append, read scope to read; another account\'s deployment is 404', async () => {
    const place = await newDeployment();
    const reader = await tokens.accessToken(owner, 'read');
    expectRefused(await append(api, place, ['x'], {}, reader), 403, 'insufficient_scope');
    expect((await api.get(place.path, { token: reader })).status).toBe(200);
    const stranger = await tokens.user('owner');
    const theirs = await tokens.accessToken(stranger, 'write');
    expectRefused(await append(api, place, ['x'], {}, theirs), 404, 'not_found');
    expectRefused(await api.get(place.path, { token: theirs }), 404, 'not_found');
  });

  it('409 deployment_finished 10 minutes after the finish (server clock)', async () => {
    const place = await newDeployment();
    await finish(place);
    expect((await append(api, place, ['late but in time'])).status).toBe(202);
    first.clock.advance(10 * 60_000 + 1000);
    expectRefused(await append(api2, place, ['too late']), 409, 'deployment_finished');
    expect((await readAll(place)).map((l) => l.text)).toEqual(['late but in time']);
  });

  it('409 log_full past LOG_MAX_LINES, with one system line saying the log was cut, also under a race', async () => {
    const place = await newDeployment();
    for (let i = 0; i < MAX_LINES / 1000; i++) expect((await append(api, place, Array.from({ length: 1000 }, (_, j) => `${i}.${j}`))).status).toBe(202);
    const answers = await race(6, (i) => append(i % 2 ? api2 : api, place, ['one more']));
    for (const r of answers) expectRefused(r, 409, 'log_full');
    const all = await readAll(place);
    expect(all).toHaveLength(MAX_LINES + 1);
    expect(all.at(-1)).toMatchObject({ seq: MAX_LINES + 1, stream: 'system', text: expect.stringContaining('The log was cut') });
  }, 60_000);
});

describe('follow (Server-Sent Events)', () => {
  it('disconnect at k, reconnect on the other instance with Last-Event-ID k: exactly k+1..N, then end', async () => {
    const place = await newDeployment();
    await append(api, place, Array.from({ length: 30 }, (_, i) => `line ${i + 1}`));
    const f1 = await Follower.open(first, place.path, token);
    expect(f1.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await f1.until('30 lines', () => f1.seqs().length >= 30);
    f1.close();
    const k = 17;
    const f2 = await Follower.open(second, place.path, token, { 'Last-Event-ID': String(k) });
    await append(api, place, Array.from({ length: 20 }, (_, i) => `more ${i + 1}`));
    await f2.until('50 lines', () => f2.seqs().length >= 50 - k);
    await finish(place);
    await f2.until('end', () => f2.ended);
    expect(f2.seqs()).toEqual(Array.from({ length: 50 - k }, (_, i) => k + 1 + i));
    const kinds = f2.events.map((e) => e.event);
    expect(kinds.at(-1)).toBe('end');
    expect(f2.events.at(-1)!.data).toEqual({ status: 'canceled', last_seq: 50 });
    expect(f2.events.find((e) => e.event === 'status')!.data).toMatchObject({ id: place.did, status: 'canceled' });
    expect(f2.events.filter((e) => e.event === 'line').every((e) => e.id === String(e.data.seq))).toBe(true);
  });

  it('?after starts there; a finished deployment streams what is stored and ends', async () => {
    const place = await newDeployment();
    await append(api, place, ['a', 'b', 'c']);
    await finish(place);
    const f = await Follower.open(second, `${place.path}?after=1`, token);
    await f.until('end', () => f.ended);
    expect(f.seqs()).toEqual([2, 3]);
    expect(f.events.at(-1)!.event).toBe('end');
  });

  it('a line written on the other instance reaches the follower within 1 s; heartbeats while idle', async () => {
    const place = await newDeployment();
    const f = await Follower.open(second, place.path, token);
    await f.until('a heartbeat', () => f.comments.includes('keep-alive'));
    for (let i = 1; i <= 5; i++) {
      const sent = performance.now();
      expect((await append(api, place, [`ping ${i}`])).status).toBe(202);
      await f.until(`line ${i}`, () => f.seqs().length >= i, 5000);
      expect(f.arrivals.at(-1)! - sent).toBeLessThan(1000);
    }
    f.close();
  });

  it('a credential holds at most 20 streams across both instances: the 21st is 429, a closed one frees a place', async () => {
    const place = await newDeployment();
    const holder = (await tokens.forClient(owner.accountId, 'read')).token;
    const opened = await race(20, (i) => Follower.open(i % 2 ? second : first, place.path, holder));
    expect(opened.map((f) => f.response.status)).toEqual(Array(20).fill(200));
    const refused = await fetch(`${first.url}${place.path}`, { headers: { authorization: `Bearer ${holder}`, accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    opened[0]!.close();
    const again = await waitFor('a freed place', async () => {
      const f = await Follower.open(second, place.path, holder);
      if (f.response.status === 200) return f;
      await f.response.body?.cancel();
      return undefined;
    });
    for (const f of [...opened, again]) f.close();
  });

  it('revoking the API key on the other instance ends its streams', async () => {
    const place = await newDeployment();
    const created = await api.post(`/v1/projects/${place.pid}/api_keys`, { token, body: { name: 'follower', scopes: ['read'] } });
    expect(created.status).toBe(201);
    const followers = await race(3, () => Follower.open(second, place.path, created.body.key));
    expect(followers.map((f) => f.response.status)).toEqual([200, 200, 200]);
    expect((await api.delete(`/v1/projects/${place.pid}/api_keys/${created.body.id}`, { token })).status).toBe(200);
    for (const f of followers) await f.until('the stream ended', () => f.ended, 5000);
    expect(followers[0]!.comments.some((c) => c.includes('revoked'))).toBe(true);
  });

  it('the project\'s deployment changes stream from the other instance, each change once; Last-Event-ID resumes', async () => {
    const pid = (await createProject(api, token)).id as string;
    const feed = await Follower.open(second, `/v1/projects/${pid}/deployments`, token);
    expect(feed.response.status).toBe(200);
    const created = await api.post(`/v1/projects/${pid}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    await feed.until('the new deployment', () => feed.events.length >= 1);
    const moved = await api.patch(`/v1/projects/${pid}/deployments/${created.body.id}`, { token, body: { status: 'building' } });
    await feed.until('its move', () => feed.events.length >= 2);
    // Past several polls (with their look-back for late writes), each change was sent once.
    await realWaits.streamPolls(700);
    expect(feed.events.map((e) => [e.event, e.data.id, e.data.status])).toEqual([
      ['deployment', created.body.id, 'queued'],
      ['deployment', created.body.id, 'building'],
    ]);
    expect(feed.events[1]!.id).toBe(String(Date.parse(moved.body.updated_at)));
    feed.close();
    const resumed = await Follower.open(first, `/v1/projects/${pid}/deployments`, token, { 'Last-Event-ID': feed.events[0]!.id! });
    await resumed.until('the change after', () => resumed.events.length >= 1);
    expect(resumed.events.map((e) => e.data.status)).toEqual(['building']);
    resumed.close();
  });

  it('a reader that takes nothing is closed once the buffers are full; it resumes after the last id it got', async () => {
    // 6 MB of lines: more than the loopback connection's buffers take (about 4 MB here).
    const place = await newDeployment();
    const total = 2400;
    for (let i = 0; i < total / 400; i++) expect((await append(api, place, Array.from({ length: 400 }, (_, j) => `${i * 400 + j + 1} ${'z'.repeat(2500)}`))).status).toBe(202);
    const before = first.services.logFollowers.open;
    const stalled = await fetch(`${first.url}${place.path}`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(stalled.status).toBe(200);
    await waitFor('the stalled stream closed', async () => first.services.logFollowers.open === before, 20_000);
    // What the server wrote before it gave up is still in the pipe: it ends with the reason, after whole events.
    const text = await stalled.text();
    expect(text.trimEnd().endsWith(': closed: the reader is too slow; reconnect with Last-Event-ID')).toBe(true);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const k = ids.at(-1)!;
    expect(ids).toEqual(Array.from({ length: k }, (_, i) => i + 1));
    expect(k).toBeLessThan(total);
    const resumed = await Follower.open(second, place.path, token, { 'Last-Event-ID': String(k) });
    await resumed.until('the rest', () => resumed.seqs().length >= total - k, 20_000);
    expect(resumed.seqs()).toEqual(Array.from({ length: total - k }, (_, i) => k + 1 + i));
    resumed.close();
  }, 60_000);

  it('CORS: a configured origin may follow (preflight with Last-Event-ID); another origin gets no CORS headers', async () => {
    const place = await newDeployment();
    const origin = 'https://app.example.com';
    const preflight = await fetch(`${first.url}${place.path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, last-event-id' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase()).toContain('last-event-id');
    await append(api, place, ['cross-origin']);
    await finish(place);
    const allowed = await Follower.open(first, place.path, token, { origin, 'Last-Event-ID': '0' });
    expect(allowed.response.headers.get('access-control-allow-origin')).toBe(origin);
    await allowed.until('end', () => allowed.ended);
    expect(allowed.seqs()).toEqual([1]);
    const other = await Follower.open(first, place.path, token, { origin: 'https://evil.example.net' });
    expect(other.response.headers.get('access-control-allow-origin')).toBeNull();
    other.close();
  });

  it('the OpenAPI document describes the event stream', async () => {
    type Operation = { responses: Record<string, { content: Record<string, { schema: { description?: string } }> }> };
    const doc = (await (await fetch(`${first.url}/openapi.json`)).json()) as { paths: Record<string, { get: Operation }> };
    const get = doc.paths['/v1/projects/{project_id}/deployments/{deployment_id}/logs']!.get;
    expect(Object.keys(get.responses['200']!.content)).toEqual(['application/json', 'text/event-stream']);
    expect(get.responses['200']!.content['text/event-stream']!.schema.description).toContain('event: line');
  });
});

// Last: it moves the clock a month on, past every token's expiry (the API key does not expire).
describe('retention', () => {
  it('the sweep removes a log LOG_RETENTION_DAYS after its deployment was created; the deployment then takes no lines', async () => {
    const place = await newDeployment();
    const key = await api.post(`/v1/projects/${place.pid}/api_keys`, { token, body: { name: 'deployer', scopes: ['write'] } });
    expect((await append(api, place, ['kept a month'], {}, key.body.key)).status).toBe(202);
    const later = await api.post(`/v1/projects/${place.pid}/deployments`, { token, body: { environment: 'staging', branch: 'main' } });
    const kept = { ...place, did: later.body.id, path: `/v1/projects/${place.pid}/deployments/${later.body.id}/logs` };
    const createdAt = async (did: string) => Date.parse((await api.get(`/v1/projects/${place.pid}/deployments/${did}`, { token })).body.created_at);
    const [placeCreated, keptCreated] = [await createdAt(place.did), await createdAt(kept.did)];
    first.clock.set(placeCreated + 30 * 86_400_000 - 30_000);
    const chunksOf = (...ids: string[]) => first.repos.deploymentLogs.collection.countDocuments({ deployment_id: { $in: ids } });
    await first.services.deploymentLogs.sweep();
    expect(await chunksOf(place.did)).toBe(1);
    expect((await append(api, kept, ['still in time'], {}, key.body.key)).status).toBe(202);
    first.clock.set(keptCreated + 30 * 86_400_000 + 1000);
    expect(await first.services.deploymentLogs.sweep()).toBeGreaterThanOrEqual(2);
    expect(await chunksOf(place.did, kept.did)).toBe(0);
    const read = await api.get(place.path, { token: key.body.key });
    expect(read.body.data).toEqual([]);
    expectRefused(await append(api2, place, ['too late'], {}, key.body.key), 409, 'log_full');
  });
});
