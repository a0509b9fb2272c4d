import { randomBytes } from 'node:crypto';
import { newId } from '../src/lib/ids.ts';
import type { ProjectDoc } from '../src/repositories/projects.ts';
import { buildServices } from '../test/support/services.ts';
import { runScenario, type LoadOptions } from './lib/load.ts';
import { signInConfidential, type Seed } from './lib/seed.ts';
import type { BenchContext, Scenario, ScenarioResult, ServerUnderTest } from './lib/types.ts';
import { intSetting } from './lib/settings.ts';
import { alignedTable } from './lib/report.ts';

/**
 * Another tenant's list beside a big tenant (`BENCH_TENANTS=1 npm run bench`): a small tenant's
 * `GET /v1/projects` (its 20 projects) on two databases side by side in one run, each with its own
 * Slipway server on the same FerretDB and the same seed: one holds only that tenant's projects, the other
 * also a tenant of BENCH_TENANT_PROJECTS (default 10,000) projects. Short measurements of the two
 * alternate (without, with | with, without | …: BENCH_TENANT_ROUNDS pairs of BENCH_TENANT_SECONDS each,
 * default 8 × 2 s), so that the machine's drift falls on both alike; the ratio is the median p50 with
 * the big tenant over the median p50 without it.
 */

const BATCH = 1000;

/** A second Slipway server on a database of its own (the same FerretDB or MongoDB), seeded as the first. */
export interface Twin {
  server: ServerUnderTest;
  seed: Seed;
}


function project(accountId: string, at: number, name: string): ProjectDoc {
  const date = new Date(at);
  return { _id: newId('project', at), account_id: accountId, name, name_lower: name, status: 'active', deploy_target: null, created_at: date, updated_at: date };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface TenantReport {
  table: string;
  results: ScenarioResult[];
  ratio: number;
}

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** A tenant of 20 projects in the side's database, and its user's access token from the side's server. */
async function smallTenant(side: Twin): Promise<string> {
  const { repos } = side.seed;
  const password = `bench-${randomBytes(12).toString('base64url')}`;
  const { users } = buildServices(repos);
  const small = await users.createByOperator({ email: `bench-small-tenant-${randomBytes(4).toString('hex')}@example.com`, name: 'Small tenant', role: 'developer', password });
  const now = Date.now();
  await repos.projects.collection.insertMany(Array.from({ length: 20 }, (_, i) => project(small.account_id, now - 1_000_000 + i, `small-${i}`)));
  const tokens = await signInConfidential(side.server.issuer, side.seed, 'read write', { email: small.email, password: password });
  return tokens.access_token;
}

export async function runTenantIsolation(ctx: BenchContext, options: LoadOptions, startTwin: () => Promise<Twin>): Promise<TenantReport> {
  const rounds = intSetting('BENCH_TENANT_ROUNDS', 8, 1, 50);
  const seconds = intSetting('BENCH_TENANT_SECONDS', 2, 1, 60);
  const bigSize = intSetting('BENCH_TENANT_PROJECTS', 10_000, 20, 1_000_000);

  progress('tenants: starting a second server on a database of its own');
  const alone: Twin = { server: ctx.server, seed: ctx.seed };
  const beside = await startTwin();
  const tokens = { without: await smallTenant(alone), with: await smallTenant(beside) };
  progress(`tenants: a tenant of ${bigSize.toLocaleString('en')} projects beside the small tenant in the second database`);
  // Only its projects: nobody signs in to it; its rows are what the small tenant's query must not pay for.
  const bigAccount = newId('account');
  const base = Date.now() - 10_000_000;
  for (let start = 0; start < bigSize; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, bigSize - start) }, (_, i) => project(bigAccount, base + start + i, `big-${start + i}`));
    await beside.seed.repos.projects.collection.insertMany(batch, { ordered: false });
  }
  const sizes = {
    without: await alone.seed.repos.projects.collection.countDocuments({}),
    with: await beside.seed.repos.projects.collection.countDocuments({}),
  };

  const scenario = (state: 'without' | 'with', warmup: boolean): Scenario => ({
    id: `tenant-list-${state}`,
    title: `GET /v1/projects, a tenant of 20, ${state} a tenant of ${bigSize.toLocaleString('en')} (${sizes[state].toLocaleString('en')} projects in the database)`,
    prepare: async () => {
      const side = state === 'with' ? beside : alone;
      return { url: side.server.url, pid: side.server.pid, warmup, requests: [{ method: 'GET', path: '/v1/projects', headers: { authorization: `Bearer ${tokens[state]}` } }] };
    },
  });

  const without: ScenarioResult[] = [];
  const withBig: ScenarioResult[] = [];
  const order: string[] = [];
  for (let round = 0; round < rounds; round += 1) {
    progress(`tenants: round ${round + 1} of ${rounds}`);
    // without, with | with, without | …: each state as often first as second
    const pair: ('without' | 'with')[] = round % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
    for (const state of pair) {
      const result = await runScenario(scenario(state, round === 0), ctx, { ...options, seconds });
      (state === 'with' ? withBig : without).push(result);
    }
    order.push(pair.map((p) => (p === 'with' ? 'W' : 'w')).join(''));
  }

  const ratio = median(withBig.map((r) => r.p50Ms)) / median(without.map((r) => r.p50Ms));
  const rows = [['round', 'without req/s', 'p50 ms', 'p99 ms', 'with req/s', 'p50 ms', 'p99 ms', 'p50 with / without']];
  for (let i = 0; i < rounds; i += 1) {
    const a = without[i]!;
    const b = withBig[i]!;
    rows.push([`${i + 1} (${order[i]})`, a.requestsPerSecond.toFixed(0), a.p50Ms.toFixed(2), a.p99Ms.toFixed(2), b.requestsPerSecond.toFixed(0), b.p50Ms.toFixed(2), b.p99Ms.toFixed(2), (b.p50Ms / a.p50Ms).toFixed(2)]);
  }
  rows.push(['median', median(without.map((r) => r.requestsPerSecond)).toFixed(0), median(without.map((r) => r.p50Ms)).toFixed(2), '', median(withBig.map((r) => r.requestsPerSecond)).toFixed(0), median(withBig.map((r) => r.p50Ms)).toFixed(2), '', ratio.toFixed(2)]);
  const table = [
    `Another tenant's list: GET /v1/projects of a tenant of 20 projects, ${seconds} s at a time, alternating (w: its database holds ${sizes.without.toLocaleString('en')} projects; W: beside a tenant of ${bigSize.toLocaleString('en')}, ${sizes.with.toLocaleString('en')} projects)`,
    alignedTable(rows[0]!, rows.slice(1)),
    '',
    `ratio (median p50 with / median p50 without): ${ratio.toFixed(2)}`,
  ].join('\n');
  return { table, results: [...without, ...withBig], ratio };
}
