/** docs/product.md §10: where a log line came from. */
export const LOG_STREAMS = ['stdout', 'stderr', 'system'] as const;
export type LogStream = (typeof LOG_STREAMS)[number];

/** Appends are taken until this long after the deployment finished (docs/product.md §10). */
export const APPEND_AFTER_FINISH_MS = 10 * 60 * 1000;

/** A secret configuration value this long or longer is masked in log lines (docs/product.md §10). */
export const MASKED_MIN_LENGTH = 8;

/** What a masked value is stored as. */
export const MASK = '***';

/**
 * `text` with every occurrence of every value replaced by MASK, longest values first (a value that
 * holds another is masked whole). Values shorter than MASKED_MIN_LENGTH are left alone.
 */
export function maskSecrets(text: string, pattern: RegExp | null): string {
  return pattern ? text.replace(pattern, MASK) : text;
}

/** The one pattern that finds any of `values` (or null when none is long enough to mask). */
export function secretPattern(values: Iterable<string>): RegExp | null {
  const long = [...new Set(values)].filter((v) => v.length >= MASKED_MIN_LENGTH).sort((a, b) => b.length - a.length);
  if (long.length === 0) return null;
  return new RegExp(long.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}
