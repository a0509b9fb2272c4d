/** The value of one sample (`name{labels}`) in Prometheus text, 0 when it has not been recorded yet. */
export function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
