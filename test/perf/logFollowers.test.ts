import { beforeAll, describe, expect, it } from 'vitest';
import { Follower } from '../support/eventStream.ts';
import { commandsDuring } from '../support/commands.ts';
import { Api } from '../support/api.ts';
import { race } from '../support/concurrency.ts';
import { createProject, useTwoInstances } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

/*
 * What following a deployment's log costs the database (docs/product.md §10): the same for 3 followers
 * as for 30 on one instance, counted per poll (counts, not timings: `npm run bench` has the timings),
 * and the places the streams hold renewed by one command per instance, whatever their number.
 */
const two = useTwoInstances({
  overrides: {
    logPollIntervalMs: 50,
    // Each stream checks its credential again every 50 ms: from memory (the caches), never per stream.
    logStreamRecheckMs: 50,
    logStreamsPerCredential: 40,
    // Background work rarely, so that what is counted is the followers' own.
    revocationRefreshSeconds: 30,
    principalCacheSeconds: 30,
    webhookPollIntervalMs: 60_000,
    sweepIntervalSeconds: 3600,
    schedulerIntervalMs: 60_000,
  },
});
let first: TestServer, second: TestServer, api: Api, token: string, pid: string;
beforeAll(async () => {
  ({ first, second } = two);
  api = await Api.connect(first.url);
  const tokens = new Tokens(first);
  token = await tokens.accessToken(await tokens.user('owner'), 'admin');
  pid = (await createProject(api, token)).id as string;
}, 120_000);

async function newDeployment(): Promise<string> {
  const res = await api.post(`/v1/projects/${pid}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
  expect(res.status).toBe(201);
  return `/v1/projects/${pid}/deployments/${res.body.id}/logs`;
}

/** Every command the server sends while `during` runs, as `name collection`. */
const serverCommandsDuring = (server: TestServer, during: (seen: string[]) => Promise<unknown>) => commandsDuring(server.running.container.database.client, during);

const POLLS = 8;
/** A poll starts by reading the deployment (LogFollowers, DeploymentPoller). */
const POLL_START = 'find deployments';

/** Each command with its count: `2 × find deployment_logs`. */
function tally(commands: string[]): string[] {
  const counts = new Map<string, number>();
  for (const command of commands) counts.set(command, (counts.get(command) ?? 0) + 1);
  return [...counts].sort((a, b) => a[0].localeCompare(b[0])).map(([command, n]) => `${n} × ${command}`);
}

/**
 * `n` followers of a new deployment on the first instance, caught up with a first line; then the
 * commands of exactly POLLS polls (from the start of one poll to the start of the poll POLLS later),
 * and of one renewal of the places they hold.
 */
async function followersCost(n: number): Promise<{ polls: string[]; renewal: string[] }> {
  const path = await newDeployment();
  const followers = await race(n, () => Follower.open(first, path, token));
  try {
    expect(followers.map((f) => f.response.status)).toEqual(Array(n).fill(200));
    expect((await api.post(path, { token, body: { lines: [{ text: 'first' }] } })).status).toBe(202);
    await waitFor('every follower has the line', async () => followers.every((f) => f.lines === 1), 10_000, 10);
    const polls = await serverCommandsDuring(first, async (seen) => {
      await waitFor(`${POLLS + 1} polls`, async () => seen.filter((c) => c === POLL_START).length > POLLS, 10_000, 5);
    });
    const starts = polls.flatMap((c, i) => (c === POLL_START ? [i] : []));
    const window = polls.slice(starts[0], starts[POLLS]);
    expect(window.filter((c) => c === POLL_START)).toHaveLength(POLLS);
    first.clock.advance(1000);
    const renewal = await serverCommandsDuring(first, async () => await first.services.streamPlaces.renewHeld());
    expect(followers.every((f) => !f.ended)).toBe(true);
    return { polls: tally(window), renewal: tally(renewal.filter((c) => c.endsWith('log_stream_slots'))) };
  } finally {
    for (const f of followers) f.close();
    await waitFor('the places given back', async () => (await first.repos.logStreamSlots.collection.countDocuments({})) === 0, 10_000, 10);
  }
}

describe('following a log costs the database per instance, not per follower', () => {
  it('the commands of 8 polls and of a renewal are the same for 3 followers as for 30', async () => {
    const few = await followersCost(3);
    const many = await followersCost(30);
    // Per poll: the deployment and the lines after the last seq seen, nothing per follower.
    expect(few.polls).toEqual([`${POLLS} × find deployment_logs`, `${POLLS} × find deployments`]);
    expect(many.polls).toEqual(few.polls);
    expect(few.renewal).toEqual(['1 × update log_stream_slots']);
    expect(many.renewal).toEqual(few.renewal);
  });

  it('30 streams opened at once over two instances: one renewal each keeps all 30 places; a place taken over closes only its stream', async () => {
    const path = await newDeployment();
    const followers = await race(30, (i) => Follower.open(i % 2 ? second : first, path, token));
    expect(followers.map((f) => f.response.status)).toEqual(Array(30).fill(200));
    const slots = first.repos.logStreamSlots.collection;
    const places = await slots.find({ _id: { $regex: '#' } }).toArray();
    expect(places).toHaveLength(30);
    first.clock.advance(5000);
    const renewals = await Promise.all([first, second].map((server) => serverCommandsDuring(server, () => server.services.streamPlaces.renewHeld())));
    for (const commands of renewals) expect(commands.filter((c) => c.endsWith('log_stream_slots'))).toEqual(['update log_stream_slots']);
    const renewed = await slots.find({ _id: { $regex: '#' } }).toArray();
    expect(renewed.map((p) => p._id).sort()).toEqual(places.map((p) => p._id).sort());
    for (const place of renewed) expect(place.expires_at.getTime()).toBeGreaterThan(places.find((p) => p._id === place._id)!.expires_at.getTime());

    // One place ends and another stream takes it over (as after its instance stalled): at the next
    // renewal its stream on whichever instance held it closes, and only that one.
    const lost = renewed[0]!;
    await slots.updateOne({ _id: lost._id }, { $set: { expires_at: new Date(lost.expires_at.getTime() + 1) } });
    await Promise.all([first, second].map((server) => server.services.streamPlaces.renewHeld()));
    await waitFor('the stream of the lost place closed', async () => followers.some((f) => f.ended), 5000, 10);
    const closed = followers.filter((f) => f.ended);
    expect(closed).toHaveLength(1);
    expect(closed[0]!.comments).toContain('closed: this stream lost its place');
    expect(first.services.streamPlaces.held + second.services.streamPlaces.held).toBe(29);
    for (const f of followers) f.close();
    // The taken-over place stays its new holder's; the others are given back.
    const left = async () => (await slots.find({ _id: { $regex: '#' } }).toArray()).map((p) => p._id);
    await waitFor('the places given back', async () => (await left()).length === 1, 10_000, 10);
    expect(await left()).toEqual([lost._id]);
    expect(first.services.streamPlaces.held + second.services.streamPlaces.held).toBe(0);
  });
});

describe('a page of a log reads the chunks it needs, whatever their size', () => {
  /** Chunks of deployment_logs the server read (documents answered by find and getMore) while `during` ran, and the finds. */
  async function chunksRead(during: () => Promise<void>): Promise<{ finds: number; chunks: number }> {
    const client = first.running.container.database.client;
    const cursors = new Set<string>();
    let finds = 0;
    let chunks = 0;
    const started = (event: { commandName: string; command: Record<string, unknown>; requestId: number }) => {
      if (event.commandName === 'find' && event.command.find === 'deployment_logs') {
        finds += 1;
        cursors.add(String(event.requestId));
      }
    };
    const succeeded = (event: { commandName: string; reply: unknown; requestId: number }) => {
      const cursor = (event.reply as { cursor?: { firstBatch?: unknown[]; nextBatch?: unknown[]; ns?: string } }).cursor;
      if (cursor?.ns?.endsWith('.deployment_logs') && (event.commandName === 'find' || event.commandName === 'getMore')) chunks += (cursor.firstBatch ?? cursor.nextBatch ?? []).length;
    };
    client.on('commandStarted', started);
    client.on('commandSucceeded', succeeded);
    try {
      await during();
    } finally {
      client.off('commandStarted', started);
      client.off('commandSucceeded', succeeded);
    }
    return { finds, chunks };
  }

  it('pages of 1,000 over chunks of 1,000 lines read 2 chunks; over chunks of 10 lines about 100, in 2 finds', async () => {
    const path = await newDeployment();
    const did = path.split('/')[5]!;
    const logs = first.repos.deploymentLogs.collection;
    const deployment = (await first.repos.deployments.collection.findOne({ _id: did }))!;
    const at = new Date();
    const chunk = (firstSeq: number, n: number) => ({
      _id: `${did}#${firstSeq}`,
      ...{ account_id: deployment.account_id, project_id: pid, deployment_id: did },
      ...{ first_seq: firstSeq, last_seq: firstSeq + n - 1, total_bytes: 0, batch_id: null, cut: false },
      lines: Array.from({ length: n }, (_, i) => ({ s: 'stdout' as const, t: `line ${firstSeq + i}`, ts: at })),
      ...{ deployment_created_at: deployment.created_at, created_at: at },
    });
    // 20 chunks of 1,000 lines (1..20,000), then 300 of 10 (20,001..23,000).
    await logs.insertMany([...Array.from({ length: 20 }, (_, i) => chunk(i * 1000 + 1, 1000)), ...Array.from({ length: 300 }, (_, i) => chunk(20_001 + i * 10, 10))] as never[]);
    const read = async (after: number) => {
      const res = await api.get(`${path}?after=${after}&limit=1000`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((l: { seq: number }) => l.seq)).toEqual(Array.from({ length: Math.min(1000, 23_000 - after) }, (_, i) => after + 1 + i));
    };
    expect(await chunksRead(() => read(0))).toEqual({ finds: 1, chunks: 2 });
    expect(await chunksRead(() => read(9_500))).toEqual({ finds: 1, chunks: 2 });
    const small = await chunksRead(() => read(20_000));
    expect(small.finds).toBe(2);
    // 101 chunks hold the 1,001 lines asked for (one more tells whether the page is the last); 2 more at most.
    expect(small.chunks).toBeGreaterThanOrEqual(101);
    expect(small.chunks).toBeLessThanOrEqual(104);
    // Straddling both sizes: the first chunk's size is a guess, corrected by the next find.
    const mixed = await chunksRead(() => read(19_500));
    expect(mixed.finds).toBeLessThanOrEqual(3);
    expect(mixed.chunks).toBeLessThanOrEqual(2 + 52 + 2);
    await read(22_500);
  });
});

describe('appends of one deployment on one instance take turns', () => {
  it('16 appends at once on one instance: 16 claims, none lost, the ranges dense; at once on two: dense too', async () => {
    const path = await newDeployment();
    const append = (server: TestServer, i: number) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ text: `a ${i}` }, { text: `b ${i}` }] }) }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as { first_seq: number; last_seq: number } }),
      );
    let answers: { status: number; body: { first_seq: number; last_seq: number } }[] = [];
    const commands = await serverCommandsDuring(first, async () => {
      answers = await race(16, (i) => append(first, i));
    });
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(202));
    // Each append claims once: no claim lost to another append of this instance.
    expect(commands.filter((c) => c === 'insert deployment_logs')).toHaveLength(16);
    const ranges = (list: typeof answers) => list.map((a) => [a.body.first_seq, a.body.last_seq]).sort((x, y) => x[0]! - y[0]!);
    expect(ranges(answers)).toEqual(Array.from({ length: 16 }, (_, i) => [2 * i + 1, 2 * i + 2]));

    const both = await race(32, (i) => append(i % 2 ? second : first, i));
    expect(both.map((a) => a.status)).toEqual(Array(32).fill(202));
    expect(ranges(both)).toEqual(Array.from({ length: 32 }, (_, i) => [33 + 2 * i, 34 + 2 * i]));
  });
});
