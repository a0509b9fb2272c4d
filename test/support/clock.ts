import type { Clock } from '../../src/lib/clock.ts';

/**
 * The clock a test hands the server (startTestServer `clock`): the wall clock plus an offset the test
 * moves. It keeps running, so what is measured in real time beside it (oidc-provider's token lifetimes,
 * the database's own TTL, a socket timeout) stays in step with everything else; it only ever moves
 * forward, so caches keyed on it never live longer than they should. Windows, expiries and grace periods
 * are reached by `advance` instead of by waiting (docs/ARCHITECTURE.md, "Time").
 */
export interface TestClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
  /** Moves time forward to `at` (ms since the epoch); a time already past is an error. */
  set(at: number): void;
  /**
   * Moves time to the start of the next fixed window of `windowMs` (default a minute), plus `intoMs`:
   * a sequence that must be counted in one window has the whole window before it.
   */
  startOfNextWindow(windowMs?: number, intoMs?: number): number;
}

export function testClock(): TestClock {
  let offset = 0;
  const clock: TestClock = {
    now: () => Date.now() + offset,
    date: () => new Date(clock.now()),
    advance(ms) {
      if (!(ms >= 0)) throw new Error(`the test clock only moves forward (advance(${ms}))`);
      offset += ms;
    },
    set(at) {
      clock.advance(at - clock.now());
    },
    startOfNextWindow(windowMs = 60_000, intoMs = 1) {
      const start = (Math.floor(clock.now() / windowMs) + 1) * windowMs + intoMs;
      clock.set(start);
      return start;
    },
  };
  return clock;
}
