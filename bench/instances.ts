/**
 * `npm run bench:instances`: how Slipway scales out. 1, 2 and 4 server processes (`node src/main.ts`,
 * the same flags as `npm start`) share one database and one keys folder, as instances behind a load
 * balancer would; the load (BENCH_CONNECTIONS connections in all, default 16) is spread evenly over
 * them, round-robin by connection. For each stateless scenario it prints the total req/s and p50/p99 at
 * each size, the speed-up over one instance, and where the CPU went at the largest size (the Slipway
 * processes together, the database, the load generator), which names the shared bottleneck.
 *
 *   BENCH_SECONDS       measured seconds per scenario and size (default 8)
 *   BENCH_CONNECTIONS   connections in all, split over the instances (default 16)
 *   BENCH_INSTANCES     comma-separated sizes (default 1,2,4)
 *   BENCH_SCENARIOS     comma-separated ids among the stateless scenarios (see STATELESS below)
 *   MONGODB_URI         run against this server instead of an embedded FerretDB
 *
 * Everything runs on this machine over loopback: on a machine with few cores the instances, the
 * database and the load generator compete for them, and the table says so.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { percentile } from './lib/load.ts';
import { seed, type Seed } from './lib/seed.ts';
import { serverNodeFlags, startServerProcess, type ServerProcess } from './lib/server.ts';
import type { BenchContext, Scenario } from './lib/types.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { intSetting } from './lib/settings.ts';

/** Scenarios whose requests carry no state between them, so any instance can serve any of them. */
const STATELESS = ['token-client-credentials', 'token-refresh', 'v1-project-get-api-key', 'v1-project-get-jwt', 'v1-projects-list-small', 'v1-deployments-create'];
const RAISED_LIMIT = '10000000';

const progress = (message: string) => process.stderr.write(`[bench:instances] ${message}\n`);


/** CPU seconds a process has used so far (utime + stime from /proc/PID/stat). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The embedded database's process: the FerretDB listening on the URI's port (none for MONGODB_URI on another host). */
function databasePid(uri: string): number | undefined {
  const port = new URL(uri.replace(/^mongodb(\+srv)?:/, 'http:')).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes('--handler=sqlite') && cmdline.includes(`--listen-addr=127.0.0.1:${port}`)) return Number(entry);
  }
  return undefined;
}

/** Busy and total jiffies of the whole machine so far (/proc/stat's first line). */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

interface SizeResult {
  instances: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU seconds per wall second, by group (1.0 = one core busy). */
  cpu: { slipway: number; database: number | undefined; loadGenerator: number; machine: number };
}

async function runSize(servers: ServerProcess[], requests: autocannon.Request[], connections: number, seconds: number, dbPid: number | undefined): Promise<SizeResult> {
  const perInstance = servers.map((_, i) => Math.floor(connections / servers.length) + (i < connections % servers.length ? 1 : 0));
  const before = { slipway: servers.reduce((s, p) => s + cpuSeconds(p.pid), 0), database: dbPid ? cpuSeconds(dbPid) : 0, self: process.cpuUsage(), machine: machineJiffies() };
  const started = process.hrtime.bigint();
  const latencies: number[] = [];
  const runs = await Promise.all(
    servers.map(
      (server, i) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          const instance = autocannon({ url: server.url, connections: perInstance[i]!, pipelining: 1, duration: seconds, timeout: 10, requests }, (err: unknown, result) =>
            err ? reject(err as Error) : resolve(result),
          );
          instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
        }),
    ),
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const self = process.cpuUsage(before.self);
  const machine = machineJiffies();
  const cores = os.cpus().length;
  const sorted = Float64Array.from(latencies).sort();
  return {
    instances: servers.length,
    requestsPerSecond: runs.reduce((s, r) => s + r.requests.total, 0) / wall,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: runs.reduce((s, r) => s + r.errors + r.non2xx, 0),
    cpu: {
      slipway: (servers.reduce((s, p) => s + cpuSeconds(p.pid), 0) - before.slipway) / wall,
      database: dbPid ? (cpuSeconds(dbPid) - before.database) / wall : undefined,
      loadGenerator: (self.user + self.system) / 1e6 / wall,
      machine: ((machine.busy - before.machine.busy) / Math.max(1, machine.total - before.machine.total)) * cores,
    },
  };
}

const pct = (cores: number | undefined) => (cores === undefined ? 'n/a' : `${Math.round(cores * 100)} %`);

async function main(): Promise<number> {
  const seconds = intSetting('BENCH_SECONDS', 8, 1, 300);
  const connections = intSetting('BENCH_CONNECTIONS', 16, 1, 256);
  const sizes = (process.env.BENCH_INSTANCES ?? '1,2,4').split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 16)) throw new Error('BENCH_INSTANCES must list whole numbers from 1 to 16');
  const wanted = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean) ?? STATELESS;
  const unknown = wanted.filter((id) => !STATELESS.includes(id));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: ${unknown.join(', ')} not among the stateless scenarios ${STATELESS.join(', ')}`);
  const scenarios: Scenario[] = SCENARIOS.filter((s) => wanted.includes(s.id));
  const most = Math.max(...sizes);
  const loadAtStart = os.loadavg()[0]!.toFixed(2);

  const workDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-instances-'));
  let database: BenchDatabase | undefined;
  const servers: ServerProcess[] = [];
  let seeded: Seed | undefined;
  const dbName = `bench_${randomBytes(5).toString('hex')}`;
  try {
    progress('starting the database');
    database = await openBenchDatabase();
    const env = {
      MONGODB_URI: database.uri,
      MONGODB_DB: dbName,
      KEYS_DIR: path.join(workDir, 'keys'),
      LOG_LEVEL: 'info',
      TOKEN_RATE_LIMIT_PER_MINUTE: RAISED_LIMIT,
      API_RATE_LIMIT_PER_HOUR: RAISED_LIMIT,
      ACCOUNT_REQUESTS_PER_HOUR: RAISED_LIMIT,
    };
    // One after the other: the first generates the shared keys, the others read them.
    for (let i = 0; i < most; i++) {
      progress(`starting instance ${i + 1} of ${most}`);
      const dir = path.join(workDir, `instance-${i + 1}`);
      await mkdir(dir, { recursive: true });
      // One PUBLIC_URL for all, as behind a load balancer: the issuer, token audience and DPoP `htu` are
      // the same whichever instance answers (the first one's address stands for the balancer's).
      const shared: Record<string, string> = servers[0] ? { PUBLIC_URL: servers[0].url } : {};
      servers.push(await startServerProcess({ workDir: dir, env: { ...env, ...shared, DATA_DIR: path.join(dir, 'data') } }));
    }
    seeded = await seed(database.uri, dbName);
    const dbPid = databasePid(database.uri);
    const ctx: BenchContext = { server: servers[0]!, seed: seeded, connections, databaseCommands: async () => 0 };

    const rows: { title: string; results: SizeResult[] }[] = [];
    for (const scenario of scenarios) {
      const prepared = await scenario.prepare(ctx);
      const results: SizeResult[] = [];
      for (const size of sizes) {
        progress(`${scenario.title}: ${size} instance${size > 1 ? 's' : ''}, ${connections} connections, ${seconds} s`);
        // A short warm-up at this size, then the measured run.
        await runSize(servers.slice(0, size), prepared.requests, connections, 1, dbPid);
        results.push(await runSize(servers.slice(0, size), prepared.requests, connections, seconds, dbPid));
      }
      await prepared.close?.();
      rows.push({ title: scenario.title, results });
    }

    const cpus = os.cpus();
    console.log('');
    console.log(`Slipway instance scaling: ${connections} connections in all, spread over the instances; ${seconds} s per cell; loopback`);
    console.log(`  instances: ${['node', ...serverNodeFlags(), 'src/main.ts'].join(' ')}, one database, one keys folder`);
    console.log(`  database:  ${database.description}`);
    console.log(`  machine:   ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} (shared by the instances, the database and the load generator), load average at start ${loadAtStart}`);
    console.log('');
    const header = ['scenario', ...sizes.map((n) => `${n} inst. req/s (p50/p99 ms)`), `${most}/${sizes[0]}`, `CPU at ${most}: slipway`, 'database', 'load gen.', 'machine', 'req/s per Slipway core'];
    const lines = rows.map(({ title, results }) => {
      const first = results[0]!;
      const last = results.at(-1)!;
      return [
        title,
        ...results.map((r) => `${Math.round(r.requestsPerSecond)} (${r.p50Ms.toFixed(1)}/${r.p99Ms.toFixed(1)})${r.errors ? ` ${r.errors} errors` : ''}`),
        `${(last.requestsPerSecond / first.requestsPerSecond).toFixed(2)}×`,
        pct(last.cpu.slipway),
        pct(last.cpu.database),
        pct(last.cpu.loadGenerator),
        pct(last.cpu.machine),
        // What one core of Slipway's own processes serves (the database's and the load generator's apart).
        last.cpu.slipway > 0 ? String(Math.round(last.requestsPerSecond / last.cpu.slipway)) : 'n/a',
      ];
    });
    console.log(`| ${header.join(' | ')} |`);
    console.log(`|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
    for (const line of lines) console.log(`| ${line.join(' | ')} |`);
    console.log('');
    // Where the time went at the largest size: the busiest shared part names the bottleneck.
    for (const { title, results } of rows) {
      const { cpu } = results.at(-1)!;
      const ours = cpu.slipway + (cpu.database ?? 0) + cpu.loadGenerator;
      const shared = cpu.database !== undefined && cpu.database >= 0.85 ? 'the database process (one FerretDB, busy on about a core of its own)' : undefined;
      const verdict =
        shared ??
        (ours >= cpus.length * 0.85
          ? `the machine's ${cpus.length} cores, all busy with this benchmark (${pct(ours)} of ${cpus.length * 100} %: slipway ${pct(cpu.slipway)}, database ${pct(cpu.database)}, load generator ${pct(cpu.loadGenerator)})`
          : cpu.machine >= cpus.length * 0.85
            ? `other work on the machine (${pct(cpu.machine)} busy in all, ${pct(ours)} of it this benchmark's): measure again on a quiet machine`
            : 'none saturated (latency-bound: more connections would add throughput)');
      console.log(`  ${title}: bottleneck at ${most} instances: ${verdict}`);
    }
    const errors = rows.flatMap((r) => r.results).reduce((s, r) => s + r.errors, 0);
    if (errors) {
      console.log(`FAILED: ${errors} errors or non-2xx answers`);
      return 1;
    }
    return 0;
  } finally {
    await seeded?.database.close().catch(() => undefined);
    for (const server of servers) await server.stop();
    await database?.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench:instances: ${(err as Error).message}`);
    process.exit(1);
  },
);
