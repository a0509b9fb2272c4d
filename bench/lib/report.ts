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

/** A plain-text table, every report's: the header, a rule, the rows; the first column left-aligned, the others (numbers) right-aligned. */
export function alignedTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The scenarios' results as a table. */
export function formatTable(results: ScenarioResult[]): string {
  return alignedTable(COLUMNS.slice(), results.map(row));
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
