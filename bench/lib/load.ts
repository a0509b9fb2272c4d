import autocannon, { type Request } from 'autocannon';
import { procCpuMs, sampleRss } from './memory.ts';
import type { BenchContext, PreparedScenario, Scenario, ScenarioResult } from './types.ts';

export interface LoadOptions {
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Sends the scenario's first request once, outside the measurement, and insists on a 2xx: a scenario
 * that cannot succeed should fail with the server's answer, not produce a table of errors.
 */
async function preflight(base: string, request: Request): Promise<void> {
  const built = request.setupRequest && typeof request.setupRequest === 'function' ? request.setupRequest({ ...request }, {}) : request;
  const response = await fetch(new URL(built.path ?? '/', base), {
    method: built.method ?? 'GET',
    headers: (built.headers ?? {}) as Record<string, string>,
    ...(built.body !== undefined ? { body: built.body } : {}),
  });
  const text = await response.text();
  if (typeof request.onResponse === 'function') request.onResponse(response.status, text, {}, Object.fromEntries(response.headers));
  if (response.status < 200 || response.status > 299) throw new Error(`the first request answered ${response.status}: ${text.slice(0, 300)}`);
}

/**
 * Runs autocannon and keeps every response time as measured (float milliseconds): autocannon's own
 * histogram rounds to whole milliseconds, which reads as "0 ms" for the cheap endpoints.
 */
function measure(options: autocannon.Options): Promise<{ result: autocannon.Result; latencies: Float64Array }> {
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    const instance = autocannon(options, (err: unknown, result) => (err ? reject(err as Error) : resolve({ result, latencies: Float64Array.from(times).sort() })));
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A scenario prepared, checked with its first request and warmed up, ready for measured rounds. */
export interface StartedScenario {
  scenario: Scenario;
  prepared: PreparedScenario;
  url: string;
  common: { url: string; connections: number; pipelining: number; timeout: number; requests: Request[] };
}

/** Prepares the scenario, sends its first request (it must answer 2xx) and warms it up. */
export async function startScenario(scenario: Scenario, ctx: BenchContext, options: LoadOptions): Promise<StartedScenario> {
  const prepared: PreparedScenario = await scenario.prepare(ctx);
  const url = prepared.url ?? ctx.server.url;
  try {
    if (!LOOPBACK.has(new URL(url).hostname)) throw new Error(`${scenario.id}: the benchmark only targets loopback, not ${url}`);
    await preflight(url, prepared.requests[0]!);
    const common = { url, connections: prepared.connections ?? options.connections, pipelining: 1, timeout: prepared.timeoutSeconds ?? 10, requests: prepared.requests };
    if (prepared.warmup !== false && options.warmupSeconds > 0) await autocannon({ ...common, duration: options.warmupSeconds });
    return { scenario, prepared, url, common };
  } catch (err) {
    await prepared.close?.();
    throw err;
  }
}

export async function runScenario(scenario: Scenario, ctx: BenchContext, options: LoadOptions): Promise<ScenarioResult> {
  const started = await startScenario(scenario, ctx, options);
  try {
    return await measureRound(started, ctx, options);
  } finally {
    await started.prepared.close?.();
  }
}

/** One measured run of `options.seconds` of a started scenario. */
export async function measureRound(started: StartedScenario, ctx: BenchContext, options: LoadOptions): Promise<ScenarioResult> {
  const { scenario, prepared, common } = started;
  {
    const countsCommands = prepared.url === undefined;
    const commandsBefore = countsCommands ? await ctx.databaseCommands() : 0;
    const serverPid = prepared.pid ?? ctx.server.pid;
    const databasePid = prepared.databasePid ?? (countsCommands ? ctx.databasePid : undefined);
    const cpuBefore = { server: procCpuMs(serverPid), database: databasePid === undefined ? undefined : procCpuMs(databasePid) };
    const sampler = sampleRss(serverPid);
    let measured: Awaited<ReturnType<typeof measure>>;
    try {
      measured = await measure({ ...common, duration: options.seconds });
    } catch (err) {
      sampler.stop();
      throw err;
    }
    const peakRssBytes = sampler.stop();
    const cpuAfter = { server: procCpuMs(serverPid), database: databasePid === undefined ? undefined : procCpuMs(databasePid) };
    const commandsAfter = countsCommands ? await ctx.databaseCommands() : 0;
    const { result, latencies } = measured;
    const perRequest = (before: number | undefined, after: number | undefined) =>
      before === undefined || after === undefined || result.requests.total === 0 ? undefined : (after - before) / result.requests.total;
    const statusCodes = Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {})
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, stats]) => [code, stats.count ?? 0]),
    );
    return {
      id: scenario.id,
      title: scenario.title,
      requestsPerSecond: result.requests.average,
      totalRequests: result.requests.total,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      peakRssBytes,
      dbCommandsPerRequest: countsCommands && measured.result.requests.total > 0 ? (commandsAfter - commandsBefore) / measured.result.requests.total : undefined,
      serverCpuMsPerRequest: perRequest(cpuBefore.server, cpuAfter.server),
      databaseCpuMsPerRequest: perRequest(cpuBefore.database, cpuAfter.database),
      statusCodes,
    };
  }
}
