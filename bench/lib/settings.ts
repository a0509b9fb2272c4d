/** An integer setting from the environment (`BENCH_…`), its default when unset, refused when out of range. */
export function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

/**
 * BENCH_ROUNDS (default 5): how many measured rounds a scenario with a fair peer runs, alternating with
 * its baseline and its peer, each of BENCH_SECONDS.
 */
export const benchRounds = () => intSetting('BENCH_ROUNDS', 5, 1, 50);

/** Refresh tokens a rotating scenario mints up front: a chain per connection per round, and spares. */
export const rotatingPoolSize = (connections: number) => connections * 2 * benchRounds() + 1;
