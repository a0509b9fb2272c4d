/**
 * `npm run bench:engines`: the benchmark's scenarios on both engines Slipway runs on here, side by side in
 * one run — the embedded FerretDB 1.24 (SQLite) that `npm start` uses, and PostgreSQL + DocumentDB behind
 * FerretDB 2 (`slipway db documentdb`, started here in a temporary directory, built once and cached in
 * .tools/). Each engine gets the whole `npm run bench` (bench/run.ts, a child process) with the same
 * settings; the table gives each scenario's req/s and p99 on both, the ratio DocumentDB / embedded (also
 * with each run's req/s taken relative to its own GET /healthz, which touches no database and so measures
 * how busy the machine was during that run), and each scenario's share of its same-run baseline on each
 * engine. Both runs share this machine's CPUs with the load generator: compare ratios, not numbers.
 *
 *   BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_WARMUP_SECONDS, BENCH_SCENARIOS: as for `npm run bench`
 *   BENCH_DOCUMENTDB_URI  use this running DocumentDB engine instead of starting one
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/config/index.ts';
import { startDocumentdb, stopDocumentdb } from '../src/db/documentdb.ts';
import { alignedTable } from './lib/report.ts';
import type { ScenarioResult } from './lib/types.ts';
import { SCENARIOS } from './scenarios/index.ts';

const progress = (message: string) => process.stderr.write(`[bench:engines] ${message}\n`);

interface EngineRun {
  database: string;
  results: ScenarioResult[];
  exitCode: number;
}

/** bench/run.ts once, on MONGODB_URI (or the embedded database when undefined); its report goes to stderr. */
async function runBench(mongodbUri: string | undefined, jsonFile: string): Promise<EngineRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_JSON: jsonFile };
  if (mongodbUri) env.MONGODB_URI = mongodbUri;
  else delete env.MONGODB_URI;
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'bench', 'run.ts')], { cwd: PROJECT_ROOT, env, stdio: ['ignore', process.stderr, process.stderr] });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
  const report = JSON.parse(await readFile(jsonFile, 'utf8')) as { database: string; results: ScenarioResult[] };
  return { ...report, exitCode };
}

const fixed = (n: number | undefined, digits = 0) => (n === undefined || !Number.isFinite(n) ? '–' : n.toFixed(digits));

async function main(): Promise<number> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-engines-'));
  // PostgreSQL runs as the postgres user when this runs as root: it must enter the directory.
  const engineDir = await mkdtemp(path.join('/var/tmp', 'slipway-bench-documentdb-'));
  let started = false;
  try {
    let documentdbUri = process.env.BENCH_DOCUMENTDB_URI;
    if (!documentdbUri) {
      progress(`starting the DocumentDB engine in ${engineDir} (built once, cached in .tools/)`);
      await chmod(engineDir, 0o711);
      const engine = await startDocumentdb({ rootDir: PROJECT_ROOT, toolsDir: path.join(PROJECT_ROOT, '.tools'), dir: engineDir, durable: true });
      started = true;
      documentdbUri = engine.mongodb_uri;
    }
    progress('the scenarios on the embedded FerretDB 1.24 (SQLite)');
    const embedded = await runBench(undefined, path.join(work, 'embedded.json'));
    progress('the same scenarios on PostgreSQL + DocumentDB (FerretDB 2)');
    const documentdb = await runBench(documentdbUri, path.join(work, 'documentdb.json'));

    // The two runs follow each other, and a shared machine's load changes between them: each run's
    // GET /healthz (no database) measures the machine as it was, and the ratio is also given with each
    // engine's req/s taken relative to its own run's /healthz.
    const healthz = (run: EngineRun) => run.results.find((r) => r.id === 'healthz')?.requestsPerSecond;
    const [healthzE, healthzD] = [healthz(embedded), healthz(documentdb)];
    const ownBaseline = (run: EngineRun, r: ScenarioResult | undefined) => {
      const baseline = SCENARIOS.find((s) => s.id === r?.id)?.compareTo;
      const b = run.results.find((x) => x.id === baseline);
      return r && b ? `${fixed((100 * r.requestsPerSecond) / b.requestsPerSecond)} %` : '–';
    };
    const rows = embedded.results.map((e) => {
      const d = documentdb.results.find((r) => r.id === e.id);
      const ratio = d ? d.requestsPerSecond / e.requestsPerSecond : undefined;
      const machineRatio = ratio !== undefined && healthzE && healthzD ? ratio / (healthzD / healthzE) : undefined;
      return [
        e.title,
        fixed(e.requestsPerSecond),
        fixed(d?.requestsPerSecond),
        fixed(ratio, 2),
        e.id === 'healthz' ? '–' : fixed(machineRatio, 2),
        `${ownBaseline(embedded, e)} / ${ownBaseline(documentdb, d)}`,
        `${fixed(e.p99Ms, 1)} / ${fixed(d?.p99Ms, 1)}`,
        `${fixed(e.dbCommandsPerRequest, 2)} / ${fixed(d?.dbCommandsPerRequest, 2)}`,
      ];
    });
    const header = ['scenario', 'embedded req/s', 'DocumentDB req/s', 'DocumentDB / embedded', 'the same, each to its run\'s /healthz', 'of its baseline (embedded / DocumentDB)', 'p99 ms (embedded / DocumentDB)', 'db commands per request'];
    console.log('');
    console.log(`Slipway on two engines, one run (${os.cpus().length} CPUs, load average now ${os.loadavg()[0]!.toFixed(2)})`);
    console.log(`  embedded:   ${embedded.database}`);
    console.log(`  DocumentDB: ${documentdb.database} — PostgreSQL + DocumentDB behind FerretDB 2`);
    console.log('');
    console.log(alignedTable(header, rows));
    return embedded.exitCode || documentdb.exitCode;
  } finally {
    if (started) await stopDocumentdb({ dir: engineDir }).catch(() => undefined);
    await rm(engineDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench:engines: ${(err as Error).message}`);
    process.exit(1);
  },
);
