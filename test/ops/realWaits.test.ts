import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Tests do not wait on the wall clock: a window, an expiry or a grace period is reached by moving the
 * server's clock (test/support/clock.ts), something that happens in the background is polled for
 * (waitFor). The few waits that must be real are named in test/support/realWaits.ts, with their reason.
 * A pause of at most 100 ms between polls or requests is not a wait for time to pass.
 */
const root = join(import.meta.dirname, '..', '..');
const ALLOWED_MS = 100;
/** The named waits themselves, and waitFor's pause between polls. */
const HOMES = new Set(['test/support/realWaits.ts', 'test/support/processes.ts']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = testFiles(join(root, 'test')).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));

/** Every fixed wait written in a file: a timer resolving a promise, or a call of a `sleep`. */
function fixedWaits(text: string): string[] {
  const timers = [...text.matchAll(/setTimeout\(\s*(?:r|resolve)\s*,\s*([^)]+)\)/g)].map((m) => m[1]!.trim());
  const sleeps = [...text.matchAll(/\b(?:sleep|settle)\(([^)]*)\)/g)].map((m) => m[1]!.trim());
  return [...timers, ...sleeps];
}

describe('waits on the wall clock in the tests', () => {
  it('reads the whole test tree', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`are at most ${ALLOWED_MS} ms outside test/support/realWaits.ts`, () => {
    const long = files
      .filter((file) => !HOMES.has(file.path))
      .flatMap((file) => fixedWaits(file.text).filter((ms) => !/^\d+$/.test(ms) || Number(ms) > ALLOWED_MS).map((ms) => `${file.path}: ${ms}`));
    expect(long).toEqual([]);
  });

  it('earlyInAMinute is gone: windows start where the clock is moved', () => {
    expect(files.filter((file) => file.path !== 'test/ops/realWaits.test.ts' && file.text.includes('earlyInAMinute')).map((file) => file.path)).toEqual([]);
  });
});
