import type { Scenario, ScenarioResult } from './types.ts';

/**
 * Throughput of each scenario that names a `compareTo` baseline, relative to it: "ours / baseline".
 * A scenario with a `target` is expected to keep at least that share of the baseline's requests per second.
 */
/**
 * CPU per request, ours (server + embedded database) against the baseline's (its server, plus its
 * database when it has one: another Slipway scenario, say): the share of the baseline's throughput ours
 * would have if the CPUs were the only limit, which load on a shared machine moves less than it moves req/s.
 */
function cpuComparison(ours: ScenarioResult, base: ScenarioResult): string {
  if (ours.serverCpuMsPerRequest === undefined || base.serverCpuMsPerRequest === undefined) return '';
  const side = (server: number, database: number | undefined) => ({
    total: server + (database ?? 0),
    text: database === undefined ? server.toFixed(2) : `server ${server.toFixed(2)} + database ${database.toFixed(2)}`,
  });
  const mine = side(ours.serverCpuMsPerRequest, ours.databaseCpuMsPerRequest);
  const theirs = side(base.serverCpuMsPerRequest, base.databaseCpuMsPerRequest);
  const share = mine.total > 0 ? ` = ${((theirs.total / mine.total) * 100).toFixed(0)}% by CPU` : '';
  return `; CPU ms/request: ${mine.text} vs ${theirs.text}${share}`;
}

export function formatComparisons(scenarios: Scenario[], results: ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const scenario of scenarios) {
    if (!scenario.compareTo) continue;
    const ours = results.find((r) => r.id === scenario.id);
    const base = results.find((r) => r.id === scenario.compareTo);
    if (!ours || !base || base.requestsPerSecond === 0) continue;
    const ratio = ours.requestsPerSecond / base.requestsPerSecond;
    const target = scenario.target;
    const rps = (n: number) => n.toFixed(n < 100 ? 1 : 0);
    lines.push(
      `${scenario.title}: ${(ratio * 100).toFixed(0)}% of the baseline's req/s (${rps(ours.requestsPerSecond)} vs ${rps(base.requestsPerSecond)}); p50 ${ours.p50Ms.toFixed(2)} vs ${base.p50Ms.toFixed(2)} ms, p99 ${ours.p99Ms.toFixed(2)} vs ${base.p99Ms.toFixed(2)} ms${
        target !== undefined ? ` (target ≥ ${(target * 100).toFixed(0)}%: ${ratio >= target ? 'met' : 'NOT met'})` : ''
      }${cpuComparison(ours, base)}`,
    );
  }
  return lines;
}
