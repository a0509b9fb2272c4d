import { mib } from './memory.ts';
import type { ScenarioResult } from './types.ts';

const COLUMNS = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'db cmd/req', 'CPU ms/req', 'db CPU ms/req', 'requests', 'non-2xx', 'errors', 'peak RSS MiB'] as const;

function row(r: ScenarioResult): string[] {
  return [
    r.title,
    r.requestsPerSecond.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.dbCommandsPerRequest === undefined ? '-' : r.dbCommandsPerRequest.toFixed(2),
    r.serverCpuMsPerRequest === undefined ? '-' : r.serverCpuMsPerRequest.toFixed(2),
    r.databaseCpuMsPerRequest === undefined ? '-' : r.databaseCpuMsPerRequest.toFixed(2),
    String(r.totalRequests),
    String(r.non2xx),
    String(r.errors),
    mib(r.peakRssBytes),
  ];
}

/** A plain-text table: left-aligned names, right-aligned numbers. */
export function formatTable(results: ScenarioResult[]): string {
  const rows = [COLUMNS.slice() as string[], ...results.map(row)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** What went wrong, per scenario, or an empty list. */
export function failures(results: ScenarioResult[]): string[] {
  return results
    .filter((r) => r.non2xx > 0 || r.errors > 0 || r.timeouts > 0)
    .map((r) => {
      const codes = Object.entries(r.statusCodes)
        .map(([code, count]) => `${count}× ${code}`)
        .join(', ');
      return `${r.title}: ${r.non2xx} non-2xx${codes ? ` (${codes})` : ''}, ${r.errors} errors, ${r.timeouts} timeouts`;
    });
}
