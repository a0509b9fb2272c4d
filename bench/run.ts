/**
 * `npm run bench`: requests/second and p50/p99 latency of the real server (a child process running
 * `node src/main.ts`) on FerretDB, or on MONGODB_URI when set, measured with autocannon over loopback,
 * database commands per request (from the server's /metrics), CPU milliseconds per request of the server
 * and of the embedded database (from /proc), and the server's peak RSS; the token endpoint
 * scenarios beside a bare oidc-provider (in-memory adapter) and a fair peer (the same oidc-provider on
 * a plain MongoDB adapter, bench/lib/peerMongoAdapter.ts, on its own embedded FerretDB), in alternating
 * rounds (bench/lib/rounds.ts), and the /v1 ones beside a bare node:http
 * baseline. Exits non-zero when any scenario saw errors or non-2xx answers.
 *
 *   BENCH_SECONDS         measured seconds per scenario (default 10)
 *   BENCH_CONNECTIONS     concurrent connections (default 10)
 *   BENCH_WARMUP_SECONDS  unmeasured seconds before each scenario (default 1)
 *   BENCH_ROUNDS          rounds of a token scenario with a fair peer (default 5): it, the bare provider and
 *                         the peer (oidc-provider on a plain MongoDB adapter, on an embedded FerretDB of
 *                         its own) are measured in alternating rounds; ratios per round, median, range;
 *                         the DPoP read and the bearer read alternate the same way
 *   BENCH_SCENARIOS       comma-separated scenario ids to run (default: all but the opt-in ones, e.g.
 *                         token-refresh-public-history; see bench/scenarios/)
 *   BENCH_REFRESH_HISTORY used refresh tokens seeded for token-refresh-public-history (default 100000)
 *   MONGODB_URI           benchmark against this server instead of an embedded FerretDB
 *   FERRETDB_BINARY       the embedded FerretDB build to run instead of the project's own (e.g. an older one)
 *   BENCH_NODE_OPTIONS    NODE_OPTIONS for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *   BENCH_BASELINE_NODE_OPTIONS  the same for the baselines (the bare provider and the fair peer)
 *   BENCH_SERVER_FLAGS    node flags of the server instead of those of `npm start` (package.json), e.g.
 *                         "--max-semi-space-size=2", or "" for none
 *   BENCH_SCALING=1       the scaling table instead (bench/scaling.ts): the same requests while the
 *                         collections hold 10^3, 10^4 and 10^5 documents, side by side
 *   BENCH_SCALING_SIZES   its column sizes (default 1000,10000,100000)
 *   BENCH_TENANTS=1       another tenant's list with and without a big tenant, two databases side by side,
 *                         alternating, instead of the scenarios (bench/tenants.ts; before the scaling table
 *                         when both are asked for); BENCH_TENANT_PROJECTS the big tenant's projects (default
 *                         10000), BENCH_TENANT_ROUNDS pairs (default 8) of BENCH_TENANT_SECONDS (default 2)
 *   BENCH_JSON            also write the scenarios' results to this file as JSON (bench/engines.ts reads it)
 *
 * After the scenarios, the log followers' section (bench/followers.ts; id `v1-logs-follow`, run by default
 * and when BENCH_SCENARIOS names it): a second server on the same database, 50 and 500 followers of one
 * deployment on one instance and on two, each phase BENCH_SECONDS of one line every 75 ms; delivery
 * p50/p99/max, every line once and in order, and the database commands per second of the followers'
 * side, 500 against 50 followers (about 4 × BENCH_SECONDS + 15 s in all).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { formatComparisons } from './lib/compare.ts';
import { runScenario } from './lib/load.ts';
import { mib } from './lib/memory.ts';
import { failures, formatTable } from './lib/report.ts';
import { seed, type Seed } from './lib/seed.ts';
import { serverNodeFlags, startServerProcess, type ServerProcess } from './lib/server.ts';
import { runScaling } from './scaling.ts';
import { runTenantIsolation } from './tenants.ts';
import { runFollowers } from './followers.ts';
import type { Scenario, ScenarioResult } from './lib/types.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { benchRounds, intSetting } from './lib/settings.ts';
import { formatRoundComparisons, runAlternating, type AlternatingRun } from './lib/rounds.ts';

/**
 * The contract's 600 token requests/minute per client would cap every token scenario at 10 req/s; the
 * benchmark raises it through the documented `tokenRateLimitPerMinute` setting (and nothing else).
 */
const BENCH_TOKEN_RATE_LIMIT = '10000000';
/** Likewise the /v1 limit of 5,000 requests/hour per credential (`apiRateLimitPerHour`); still counted. */
const BENCH_API_RATE_LIMIT = '10000000';
/** Likewise LOG_MAX_LINES (100,000 lines a deployment): v1-logs-append writes more than that into one log. */
const BENCH_LOG_MAX_LINES = '100000000';


/** The log followers' section (bench/followers.ts), by its id in BENCH_SCENARIOS. */
const FOLLOWERS_ID = 'v1-logs-follow';
const benchScenarioIds = () => process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean);
const followersWanted = () => {
  const wanted = benchScenarioIds();
  return !wanted?.length || wanted.includes(FOLLOWERS_ID);
};

function selectScenarios() {
  const wanted = benchScenarioIds()?.filter((id) => id !== FOLLOWERS_ID);
  if (benchScenarioIds()?.length && !wanted?.length) return [];
  if (!wanted?.length) return SCENARIOS.filter((s) => !s.optIn);
  const unknown = wanted.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) throw new Error(`unknown BENCH_SCENARIOS ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  return SCENARIOS.filter((s) => wanted.includes(s.id));
}

/** The server's database command count so far: the sum of `slipway_db_command_duration_seconds_count` over commands. */
async function countDatabaseCommands(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  let total = 0;
  for (const line of (await res.text()).split('\n')) if (line.startsWith('slipway_db_command_duration_seconds_count')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<number> {
  const options = {
    seconds: intSetting('BENCH_SECONDS', 10, 1, 300),
    connections: intSetting('BENCH_CONNECTIONS', 10, 1, 256),
    warmupSeconds: intSetting('BENCH_WARMUP_SECONDS', 1, 0, 30),
  };
  const scenarios = selectScenarios();
  const loadAtStart = os.loadavg()[0]!.toFixed(2);

  const workDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-'));
  let database: BenchDatabase | undefined;
  let server: ServerProcess | undefined;
  let seeded: Seed | undefined;
  /** Second servers on databases of their own (BENCH_TENANTS). */
  const twins: { server: ServerProcess; seed: Seed }[] = [];
  /** A second server on the same database (the log followers' section). */
  let sibling: ServerProcess | undefined;
  const dbName = `bench_${randomBytes(5).toString('hex')}`;
  const metricsToken = randomBytes(24).toString('base64url');
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const s of [seeded, ...twins.map((t) => t.seed)]) {
        if (s && process.env.MONGODB_URI) await s.database.db.dropDatabase().catch(() => undefined);
        await s?.database.close().catch(() => undefined);
      }
      for (const twin of twins) await twin.server.stop();
      await sibling?.stop();
      await server?.stop();
      await database?.close();
      await rm(workDir, { recursive: true, force: true });
    })());
  const interrupted = () => {
    progress('interrupted: stopping the server and the database');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    progress('starting the database');
    database = await openBenchDatabase();
    const serverCommand = ['node', ...serverNodeFlags(), 'src/main.ts'].join(' ');
    progress(`starting the server (${serverCommand})`);
    const serverEnv = (uri: string, db: string, dir: string) => ({
      MONGODB_URI: uri,
      MONGODB_DB: db,
      KEYS_DIR: path.join(dir, 'keys'),
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'info',
      TOKEN_RATE_LIMIT_PER_MINUTE: BENCH_TOKEN_RATE_LIMIT,
      API_RATE_LIMIT_PER_HOUR: BENCH_API_RATE_LIMIT,
      ACCOUNT_REQUESTS_PER_HOUR: BENCH_API_RATE_LIMIT,
      // A deployment's log holds 100,000 lines by default: the append scenario writes more into one.
      LOG_MAX_LINES: BENCH_LOG_MAX_LINES,
      LOG_MAX_BYTES: String(16 * 1024 ** 3),
      // /metrics on the main port behind this token: the database command counts per scenario come from it.
      METRICS_TOKEN: metricsToken,
    });
    server = await startServerProcess({ workDir, env: serverEnv(database.uri, dbName, workDir) });
    seeded = await seed(database.uri, dbName);
    const db = database;
    const startTwin = async () => {
      const dir = path.join(workDir, 'twin');
      await mkdir(dir, { recursive: true });
      const twinServer = await startServerProcess({ workDir: dir, env: serverEnv(db.uri, `${dbName}_twin`, dir) });
      const twinSeed = await seed(db.uri, `${dbName}_twin`);
      twins.push({ server: twinServer, seed: twinSeed });
      return { server: twinServer, seed: twinSeed };
    };
    const url = server.url;
    const databaseCommands = () => countDatabaseCommands(url, metricsToken);
    const ctx = { server, seed: seeded, connections: options.connections, databaseCommands, databasePid: database.pid };

    const results: ScenarioResult[] = [];
    const broken: string[] = [];
    const tenants = process.env.BENCH_TENANTS === '1' ? await runTenantIsolation(ctx, options, startTwin) : undefined;
    if (tenants) results.push(...tenants.results);
    const scaling = process.env.BENCH_SCALING === '1' ? await runScaling(ctx, options) : undefined;
    if (scaling) for (const row of scaling.results.values()) results.push(...row);
    // A scenario with a fair peer (or marked `alternate`) runs with its baseline (and its peer) in alternating rounds.
    const alternating = new Map<string, AlternatingRun>();
    const grouped = new Set<string>();
    const inRounds = (scenario: Scenario) => scenario.peer !== undefined || scenario.alternate === true;
    const groupOf = (scenario: Scenario) => [scenario, ...scenarios.filter((s) => s.id === scenario.compareTo || s.id === scenario.peer?.id)];
    for (const scenario of scaling || tenants ? [] : scenarios) {
      if (!inRounds(scenario)) continue;
      for (const member of groupOf(scenario)) grouped.add(member.id);
    }
    for (const scenario of scaling || tenants ? [] : scenarios) {
      if (inRounds(scenario)) {
        const group = groupOf(scenario);
        try {
          const run = await runAlternating(group, ctx, options, benchRounds(), progress);
          alternating.set(scenario.id, run);
          results.push(...run.results);
        } catch (err) {
          broken.push(`${scenario.title}: ${(err as Error).message}`);
        }
        continue;
      }
      if (grouped.has(scenario.id)) continue;
      progress(`${scenario.title}: ${options.warmupSeconds} s warm-up, ${options.seconds} s measured, ${options.connections} connections`);
      try {
        results.push(await runScenario(scenario, ctx, options));
      } catch (err) {
        broken.push(`${scenario.title}: ${(err as Error).message}`);
      }
    }
    let followers: Awaited<ReturnType<typeof runFollowers>> | undefined;
    if (followersWanted() && !scaling && !tenants) {
      const dir = path.join(workDir, 'sibling');
      await mkdir(dir, { recursive: true });
      progress('log followers: starting a second server on the same database');
      // The same database and keys as the first (instances behind one load balancer), a data folder of its own.
      sibling = await startServerProcess({ workDir: dir, env: { ...serverEnv(db.uri, dbName, workDir), DATA_DIR: path.join(dir, 'data') } });
      try {
        followers = await runFollowers({
          servers: [server, sibling],
          seed: seeded,
          databaseCommands: (s) => countDatabaseCommands(s.url, metricsToken),
          seconds: options.seconds,
          progress,
        });
        broken.push(...followers.problems);
      } catch (err) {
        broken.push(`log followers: ${(err as Error).message}`);
      }
    }
    const peak = server.peakRss();

    const cpus = os.cpus();
    console.log('');
    console.log(`Slipway benchmark: ${options.seconds} s per scenario, ${options.connections} connections, loopback`);
    console.log(`  server:   ${serverCommand} (pid ${server.pid}), Node ${process.version}, log level info`);
    console.log(`  database: ${database.description}`);
    // autocannon, the server and the database share these CPUs; a busy machine lowers every number.
    console.log(`  machine:  ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, ${mib(os.totalmem())} MiB, load average at start ${loadAtStart}`);
    console.log(`  token endpoint limit raised to ${BENCH_TOKEN_RATE_LIMIT}/min per client (TOKEN_RATE_LIMIT_PER_MINUTE)`);
    console.log(`  deployment logs: LOG_MAX_LINES raised to ${BENCH_LOG_MAX_LINES} (v1-logs-append writes into one log)`);
    console.log(`  /v1 limits raised to ${BENCH_API_RATE_LIMIT}/hour per credential and per account (API_RATE_LIMIT_PER_HOUR, ACCOUNT_REQUESTS_PER_HOUR; every request is still counted in MongoDB)`);
    console.log('');
    if (tenants) console.log(`${tenants.table}\n`);
    if (scaling) {
      console.log(scaling.table);
      console.log(`seeding (every dataset, insertMany of 1,000): ${[...scaling.seedSeconds].map(([n, sec]) => `to ${n.toLocaleString('en')} in ${sec.toFixed(1)} s`).join(', ')}`);
    } else if (results.length && !tenants) console.log(formatTable(results));
    const comparisons = formatComparisons(scenarios.filter((s) => !inRounds(s)), results);
    for (const scenario of scenarios) {
      const run = alternating.get(scenario.id);
      if (run) comparisons.push(...formatRoundComparisons(scenario, run));
    }
    for (const scenario of scenarios) {
      const result = scenario.throughput && results.find((r) => r.id === scenario.id);
      if (!result || !scenario.throughput) continue;
      const { unit, perRequest, target } = scenario.throughput;
      const rate = result.requestsPerSecond * perRequest;
      comparisons.push(`${scenario.title}: ${rate.toFixed(0)} ${unit}/s${target === undefined ? '' : ` (target ≥ ${target.toLocaleString('en')}: ${rate >= target ? 'met' : 'NOT met'})`}`);
    }
    if (comparisons.length) console.log(['', 'ours / baseline:', ...comparisons.map((l) => `  ${l}`)].join('\n'));
    if (followers) console.log(`\n${followers.table}`);
    console.log('');
    console.log(`server peak RSS (VmHWM, whole run): ${mib(peak)} MiB`);

    if (process.env.BENCH_JSON) await writeFile(process.env.BENCH_JSON, JSON.stringify({ database: database.description, results }, null, 2));

    const problems = [...broken, ...failures(results)];
    if (problems.length) {
      console.log('');
      console.log('FAILED:');
      for (const problem of problems) console.log(`  - ${problem}`);
      const tail = server.logTail(5);
      if (tail) console.log(`last server log lines:\n${tail}`);
      return 1;
    }
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${(err as Error).message}`);
    process.exit(1);
  },
);
