import type { Scenario, ScenarioResult } from './types.ts';

/**
 * Throughput of each scenario that names a `compareTo` baseline, relative to it: "ours / baseline".
 * The /v1 read path is expected to keep at least `target` of the baseline's requests per second.
 */
export function formatComparisons(scenarios: Scenario[], results: ScenarioResult[], target = 0.7): string[] {
  const lines: string[] = [];
  for (const scenario of scenarios) {
    if (!scenario.compareTo) continue;
    const ours = results.find((r) => r.id === scenario.id);
    const base = results.find((r) => r.id === scenario.compareTo);
    if (!ours || !base || base.requestsPerSecond === 0) continue;
    const ratio = ours.requestsPerSecond / base.requestsPerSecond;
    const rps = (n: number) => n.toFixed(n < 100 ? 1 : 0);
    lines.push(
      `${scenario.title}: ${(ratio * 100).toFixed(0)}% of the baseline's req/s (${rps(ours.requestsPerSecond)} vs ${rps(base.requestsPerSecond)}); p50 ${ours.p50Ms.toFixed(2)} vs ${base.p50Ms.toFixed(2)} ms, p99 ${ours.p99Ms.toFixed(2)} vs ${base.p99Ms.toFixed(2)} ms${
        scenario.id.startsWith('v1-projects-list') || scenario.id.startsWith('v1-project-get') ? ` (target ≥ ${(target * 100).toFixed(0)}%: ${ratio >= target ? 'met' : 'NOT met'})` : ''
      }`,
    );
  }
  return lines;
}
