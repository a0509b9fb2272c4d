import http from 'node:http';
import { newId } from '../src/lib/ids.ts';
import type { ProjectDoc } from '../src/repositories/projects.ts';
import { percentile } from './lib/load.ts';
import { systemPrincipal } from '../src/domain/principal.ts';
import { buildServices } from '../test/support/services.ts';
import type { Seed } from './lib/seed.ts';
import type { ServerProcess } from './lib/server.ts';
import { deploymentDoc } from './scenarios/logs.ts';

/**
 * Followers of one deployment's log (docs/product.md §10), a section of `npm run bench`: N followers
 * (Server-Sent Events over node:http, split evenly over the instances) of one running deployment while
 * a writer appends one line every WRITE_EVERY_MS, alternating instances, each line carrying its send
 * time. Each follower notes when each line arrived and checks it got every line once, in order. Then
 * the database side: the servers' database commands per second over the same window (their /metrics),
 * less the writer's own appends (their cost measured first, with nobody following), at 50 and at 500
 * followers, on one instance and on two. Targets: p99 delivery ≤ 1 s at 500 followers on two instances,
 * and the followers' commands per second not growing with followers (500 vs 50 ≈ 1).
 */

/** Follower counts compared, and the instance counts. */
export const FOLLOWER_COUNTS = [50, 500] as const;
const INSTANCES = [1, 2] as const;
/** Streams per credential: LOG_STREAMS_PER_CREDENTIAL's default, so 500 followers use 25 API keys of the project, as 25 CI jobs would. */
const PER_CREDENTIAL = 20;
const WRITE_EVERY_MS = 75;
/** Followers opened at once (each claims a place, a unique insert). */
const OPEN_CONCURRENCY = 50;
const DELIVERY_TARGET_MS = 1000;
/** 500 followers' commands per second over 50's: at most this (≈ 1: they grow with instances, not followers). */
const GROWTH_TARGET = 1.25;

export interface FollowersContext {
  /** Two servers on one database (the first is the main one). */
  servers: [ServerProcess, ServerProcess];
  seed: Seed;
  /** Database commands each server has sent so far. */
  databaseCommands(server: ServerProcess): Promise<number>;
  seconds: number;
  progress(message: string): void;
}

interface Phase {
  followers: number;
  instances: number;
  seconds: number;
  linesSent: number;
  delivery: { p50: number; p99: number; max: number };
  /** Lines per follower, least and most. */
  perFollower: { min: number; max: number };
  missed: number;
  /** Lines a follower got twice or out of order. */
  disordered: number;
  /** Followers whose stream ended before the end of the phase. */
  dropped: number;
  commandsPerSecond: number;
  appendCommandsPerSecond: number;
}

/** One follower: node:http, the event stream parsed as it comes. */
class Follower {
  readonly delays: number[] = [];
  readonly seqs: number[] = [];
  ended = false;
  #request: http.ClientRequest | undefined;

  open(url: string, path: string, token: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${url}${path}`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
        resolve(res.statusCode ?? 0);
        if (res.statusCode !== 200) {
          res.resume();
          this.ended = true;
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (text: string) => {
          const now = performance.now();
          buffer += text;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.includes('event: line')) continue;
            const data = block.slice(block.indexOf('data: ') + 6);
            const line = JSON.parse(data) as { seq: number; text: string };
            this.seqs.push(line.seq);
            this.delays.push(now - Number(line.text.slice(line.text.indexOf('sent=') + 5)));
          }
        });
        res.on('close', () => (this.ended = true));
      });
      request.on('error', (err) => {
        this.ended = true;
        reject(err);
      });
      this.#request = request;
    });
  }

  close(): void {
    this.#request?.destroy();
  }
}

async function inBatches<T>(n: number, size: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFollowers(ctx: FollowersContext): Promise<{ table: string; problems: string[] }> {
  const { seed, servers, progress } = ctx;
  const { repos, user } = seed;
  const now = new Date();
  const project: ProjectDoc = { _id: newId('project'), account_id: user.accountId, name: 'bench-follow', name_lower: 'bench-follow', status: 'active', deploy_target: null, created_at: now, updated_at: now };
  await repos.projects.collection.insertOne(project);
  const credentials = Math.ceil(Math.max(...FOLLOWER_COUNTS) / PER_CREDENTIAL);
  const { apiKeys } = buildServices(repos);
  const key = async (name: string, scopes: ('read' | 'write')[]) => (await apiKeys.create(systemPrincipal(user.accountId), project._id, { name, scopes })).key;
  const readers = await inBatches(credentials, 5, (i) => key(`bench follower ${i}`, ['read']));
  const writer = await key('bench deployer', ['read', 'write']);
  const newDeployment = async () => {
    const deployment = deploymentDoc(user.accountId, project._id);
    await repos.deployments.insert(deployment);
    return `/v1/projects/${project._id}/deployments/${deployment._id}/logs`;
  };
  const append = async (server: ServerProcess, path: string, text: string) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ text }] }) });
    await res.body?.cancel();
    if (res.status !== 202) throw new Error(`an append answered ${res.status}`);
  };
  const commands = async (used: ServerProcess[]) => (await Promise.all(used.map((s) => ctx.databaseCommands(s)))).reduce((a, b) => a + b, 0);

  // What one append costs the database with nobody following (its claim, the deployment, the project).
  const calibration = await newDeployment();
  const APPENDS = 40;
  await append(servers[0], calibration, 'warm-up');
  const before = await commands([servers[0]]);
  for (let i = 0; i < APPENDS; i++) await append(servers[0], calibration, `calibration ${i}`);
  const perAppend = ((await commands([servers[0]])) - before) / APPENDS;

  const phases: Phase[] = [];
  for (const instances of INSTANCES) {
    for (const n of FOLLOWER_COUNTS) {
      const used = servers.slice(0, instances);
      progress(`log followers: ${n} on ${instances} instance(s), ${ctx.seconds} s of one line every ${WRITE_EVERY_MS} ms`);
      // The places of the previous phase are given back first (its streams' releases).
      for (let i = 0; i < 100 && (await repos.logStreamSlots.collection.countDocuments({})) > 0; i++) await sleep(100);
      const path = await newDeployment();
      const followers = Array.from({ length: n }, () => new Follower());
      const statuses = await inBatches(n, OPEN_CONCURRENCY, (i) => followers[i]!.open(used[i % instances]!.url, path, readers[Math.floor(i / PER_CREDENTIAL)]!));
      const refused = statuses.filter((s) => s !== 200).length;
      if (refused) throw new Error(`${refused} of ${n} followers were refused (${[...new Set(statuses)].join(', ')})`);
      await sleep(500);

      const from = await commands(used);
      const started = performance.now();
      let sent = 0;
      for (let next = started; performance.now() - started < ctx.seconds * 1000; next += WRITE_EVERY_MS) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        sent += 1;
        await append(used[sent % instances]!, path, `line ${sent} sent=${performance.now()}`);
      }
      const elapsed = (performance.now() - started) / 1000;
      const to = await commands(used);
      // The last lines' delivery, then the count.
      for (let i = 0; i < 50 && followers.some((f) => !f.ended && f.seqs.length < sent); i++) await sleep(100);
      for (const f of followers) f.close();

      const delays = Float64Array.from(followers.flatMap((f) => f.delays)).sort();
      const counts = followers.map((f) => f.seqs.length);
      let disordered = 0;
      let missed = 0;
      for (const f of followers) {
        missed += sent - new Set(f.seqs.filter((seq) => seq >= 1 && seq <= sent)).size;
        let highest = 0;
        for (const seq of f.seqs) {
          if (seq <= highest) disordered += 1;
          else highest = seq;
        }
      }
      phases.push({
        followers: n,
        instances,
        seconds: elapsed,
        linesSent: sent,
        delivery: { p50: percentile(delays, 50), p99: percentile(delays, 99), max: delays.at(-1) ?? Number.NaN },
        perFollower: { min: Math.min(...counts), max: Math.max(...counts) },
        missed,
        disordered,
        dropped: followers.filter((f) => f.ended && f.seqs.length < sent).length,
        commandsPerSecond: (to - from) / elapsed,
        appendCommandsPerSecond: (sent * perAppend) / elapsed,
      });
    }
  }
  return report(phases, perAppend);
}

function report(phases: Phase[], perAppend: number): { table: string; problems: string[] } {
  const ms = (n: number) => n.toFixed(n < 10 ? 1 : 0);
  const followerSide = (p: Phase) => p.commandsPerSecond - p.appendCommandsPerSecond;
  const rows = phases.map(
    (p) =>
      `| ${p.followers} | ${p.instances} | ${p.linesSent} | ${ms(p.delivery.p50)} | ${ms(p.delivery.p99)} | ${ms(p.delivery.max)} | ${p.perFollower.min}–${p.perFollower.max} | ${p.missed} | ${p.disordered} | ${p.dropped} | ${p.commandsPerSecond.toFixed(1)} | ${p.appendCommandsPerSecond.toFixed(1)} | ${followerSide(p).toFixed(1)} |`,
  );
  const lines = [
    `Log followers of one deployment (one line every ${WRITE_EVERY_MS} ms, alternating instances; ${PER_CREDENTIAL} streams per credential; an append costs ${perAppend.toFixed(2)} db commands with nobody following):`,
    '',
    '| followers | instances | lines | delivery p50 ms | p99 ms | max ms | lines per follower | missed | twice or out of order | dropped | db cmd/s | of which appends | followers\' side cmd/s |',
    '|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ];
  const problems: string[] = [];
  for (const instances of INSTANCES) {
    const few = phases.find((p) => p.instances === instances && p.followers === FOLLOWER_COUNTS[0]);
    const many = phases.find((p) => p.instances === instances && p.followers === FOLLOWER_COUNTS[1]);
    if (!few || !many) continue;
    const ratio = followerSide(many) / followerSide(few);
    lines.push(
      `followers' side db commands/s, ${many.followers} vs ${few.followers} followers on ${instances} instance(s): ${ratio.toFixed(2)} (${followerSide(many).toFixed(1)} vs ${followerSide(few).toFixed(1)}; target ≤ ${GROWTH_TARGET}: ${ratio <= GROWTH_TARGET ? 'met' : 'NOT met'})`,
    );
  }
  const one = phases.find((p) => p.instances === 1 && p.followers === FOLLOWER_COUNTS[1]);
  const two = phases.find((p) => p.instances === 2 && p.followers === FOLLOWER_COUNTS[1]);
  if (one && two) lines.push(`followers' side db commands/s, 2 instances vs 1 at ${two.followers} followers: ${(followerSide(two) / followerSide(one)).toFixed(2)}`);
  if (two)
    lines.push(
      `delivery p99 at ${two.followers} followers on 2 instances: ${ms(two.delivery.p99)} ms (target ≤ ${DELIVERY_TARGET_MS} ms: ${two.delivery.p99 <= DELIVERY_TARGET_MS ? 'met' : 'NOT met'})`,
    );
  for (const p of phases) {
    if (p.missed || p.disordered || p.dropped)
      problems.push(`log followers, ${p.followers} on ${p.instances} instance(s): ${p.missed} lines missed, ${p.disordered} twice or out of order, ${p.dropped} streams dropped`);
  }
  return { table: lines.join('\n'), problems };
}
