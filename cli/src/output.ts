/** Printing: JSON for scripts (`--json`), aligned columns for people. Results go to stdout, everything else to stderr. */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function say(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Columns padded to their widest cell; `rows` empty prints `empty` instead. */
export function printTable(headers: string[], rows: (string | null | undefined)[][], empty: string): void {
  if (rows.length === 0) {
    say(empty);
    return;
  }
  const cells = [headers, ...rows.map((row) => row.map((cell) => cell ?? '-'))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  for (const row of cells) {
    process.stdout.write(`${row.map((cell, i) => (i === row.length - 1 ? cell : (cell ?? '').padEnd(widths[i]!))).join('  ')}\n`);
  }
}

export function ago(iso: string | null | undefined): string {
  if (!iso) return '-';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}
