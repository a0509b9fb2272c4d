import { newId } from '../../src/lib/ids.ts';
import { chunkId, type LogChunkDoc } from '../../src/repositories/deploymentLogs.ts';
import type { DeploymentDoc } from '../../src/repositories/deployments.ts';
import type { ProjectDoc } from '../../src/repositories/projects.ts';
import { signInConfidential } from '../lib/seed.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';

/**
 * Deployment logs (docs/product.md §10): appends from 8 writers at once into one deployment's log (each
 * request one claimed range after the last chunk, so writers race for it), into a new log and into one
 * that holds 10^6 lines already (the same cost: the last chunk is found on the index); and a page of
 * 1,000 lines read at the start of that log beside the same page 900,000 lines in (likewise).
 */

const WRITERS = 8;
const LINES_PER_APPEND = 10;
/** Lines seeded for the big-log scenarios: 1,000 chunks of 1,000 (10^6 lines). */
const SEEDED_CHUNKS = 1000;
const CHUNK_LINES = 1000;

const appendBody = (n: number) => JSON.stringify({ lines: Array.from({ length: n }, (_, i) => ({ text: `Step ${i + 1}/${n} : RUN npm ci --no-audit --no-fund`, stream: i % 5 ? 'stdout' : 'stderr' })) });
/** Lines a request of the opt-in batched case carries (a deployer that buffers its output). */
const BATCHED_LINES = 100;

interface LogFixture {
  token: string;
  projectId: string;
  /** A deployment the writers append to. */
  appendTo: string;
  /** A deployment whose log holds SEEDED_CHUNKS × CHUNK_LINES lines (seeded only for the big-log scenarios). */
  seeded?: string;
}

const fixtures = new WeakMap<object, Promise<LogFixture>>();
const seededLogs = new WeakMap<object, Promise<string>>();

export function deploymentDoc(accountId: string, projectId: string): DeploymentDoc {
  const now = new Date();
  return {
    _id: newId('deployment'),
    account_id: accountId,
    project_id: projectId,
    environment: 'production',
    branch: 'main',
    commit_sha: null,
    status: 'building',
    status_message: null,
    url: null,
    created_by: { type: 'system', id: 'bench' },
    created_at: now,
    updated_at: now,
    started_at: now,
    finished_at: null,
  };
}

/** Once per run: a project with a running deployment, and a user token of the seed account. */
function fixture(ctx: BenchContext): Promise<LogFixture> {
  let pending = fixtures.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const { repos, user } = ctx.seed;
      const now = new Date();
      const project: ProjectDoc = { _id: newId('project'), account_id: user.accountId, name: 'bench-logs', name_lower: 'bench-logs', status: 'active', deploy_target: null, created_at: now, updated_at: now };
      await repos.projects.collection.insertOne(project);
      const deployment = deploymentDoc(user.accountId, project._id);
      await repos.deployments.insert(deployment);
      const token = (await signInConfidential(ctx.server.issuer, ctx.seed, 'read write')).access_token;
      return { token, projectId: project._id, appendTo: deployment._id };
    })();
    fixtures.set(ctx.seed, pending);
  }
  return pending;
}

/** A deployment with a log of 10^6 lines, written straight into the database (as 1,000 appends of 1,000 lines would). */
async function seededLog(ctx: BenchContext): Promise<LogFixture & { seeded: string }> {
  const base = await fixture(ctx);
  let pending = seededLogs.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const { repos, user } = ctx.seed;
      const deployment = deploymentDoc(user.accountId, base.projectId);
      await repos.deployments.insert(deployment);
      const at = new Date();
      let bytes = 0;
      const chunk = (n: number): LogChunkDoc => {
        const first = n * CHUNK_LINES + 1;
        const lines = Array.from({ length: CHUNK_LINES }, (_, i) => ({ s: 'stdout' as const, t: `line ${first + i}: compiling module ${i} of ${CHUNK_LINES}`, ts: at }));
        bytes += lines.reduce((sum, line) => sum + Buffer.byteLength(line.t), 0);
        return {
          _id: chunkId(deployment._id, first),
          ...{ account_id: user.accountId, project_id: base.projectId, deployment_id: deployment._id },
          ...{ first_seq: first, last_seq: first + CHUNK_LINES - 1, total_bytes: bytes, batch_id: null, cut: false, lines },
          ...{ deployment_created_at: deployment.created_at, created_at: at },
        };
      };
      const started = performance.now();
      for (let n = 0; n < SEEDED_CHUNKS; n += 50)
        await repos.deploymentLogs.collection.insertMany(Array.from({ length: Math.min(50, SEEDED_CHUNKS - n) }, (_, i) => chunk(n + i)));
      const lines = (SEEDED_CHUNKS * CHUNK_LINES).toLocaleString('en');
      process.stderr.write(`[bench] seeded a log of ${lines} lines in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      return deployment._id;
    })();
    seededLogs.set(ctx.seed, pending);
  }
  return { ...base, seeded: await pending };
}

/** The issue's target for appends: lines per second from WRITERS writers on one instance. */
const APPEND_LINES_TARGET = 20_000;

function appendInto(big: boolean, perRequest = LINES_PER_APPEND): Scenario {
  return {
    id: big ? 'v1-logs-append-1m' : perRequest === LINES_PER_APPEND ? 'v1-logs-append' : `v1-logs-append-batch${perRequest}`,
    title: `POST …/deployments/:id/logs (${perRequest} lines a request, one deployment, ${WRITERS} writers, ${big ? `a log of ${(SEEDED_CHUNKS * CHUNK_LINES).toLocaleString('en')} lines` : 'a new log'})`,
    throughput: { unit: 'lines', perRequest, target: APPEND_LINES_TARGET },
    // Opt-in: the same writers sending 100 lines a request, as a deployer buffering its output would.
    ...(perRequest === LINES_PER_APPEND ? {} : { optIn: true }),
    // Into 10^6 lines at least 90% of the rate into a new log: the last chunk is found on the index.
    ...(big ? { optIn: true, compareTo: 'v1-logs-append', target: 0.9 } : {}),
    async prepare(ctx) {
      const { token, projectId, appendTo, seeded } = big ? await seededLog(ctx) : await fixture(ctx);
      return {
        connections: WRITERS,
        requests: [
          {
            method: 'POST',
            path: `/v1/projects/${projectId}/deployments/${big ? seeded : appendTo}/logs`,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: appendBody(perRequest),
          },
        ],
      };
    },
  };
}

export const appendLogs = appendInto(false);
export const appendLogsBig = appendInto(true);
export const appendLogsBatched = appendInto(false, BATCHED_LINES);

/** A read scenario's page: 1,000 lines, the most a page holds. */
const READ_LINES = 1000;

function readAt(after: number): Scenario {
  return {
    id: after === 0 ? 'v1-logs-read-start' : 'v1-logs-read-900k',
    title: `GET …/deployments/:id/logs?after=${after}&limit=${READ_LINES} (a log of ${(SEEDED_CHUNKS * CHUNK_LINES).toLocaleString('en')} lines)`,
    // Seeds 10^6 lines (once for the big-log scenarios) into the embedded database: about a minute.
    optIn: true,
    // At seq 900,000 within 1.5× of seq 1: at least 1 / 1.5 of its req/s.
    ...(after === 0 ? {} : { compareTo: 'v1-logs-read-start', target: 1 / 1.5 }),
    async prepare(ctx) {
      const { token, projectId, seeded } = await seededLog(ctx);
      return { requests: [{ method: 'GET', path: `/v1/projects/${projectId}/deployments/${seeded}/logs?after=${after}&limit=${READ_LINES}`, headers: { authorization: `Bearer ${token}` } }] };
    },
  };
}

export const readLogStart = readAt(0);
export const readLog900k = readAt(900_000);
