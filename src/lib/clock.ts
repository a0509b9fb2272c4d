/**
 * What decides by time reads it here: rate-limit and budget windows, login throttling, API-key,
 * session, setup-link and Idempotency-Key expiries and grace periods, webhook retries and circuits, the
 * sweep. The process uses `systemClock`; tests hand the container another one (docs/ARCHITECTURE.md,
 * "Time"), so a window or an expiry is reached by moving the clock instead of waiting for it.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** The same instant as a Date. */
  date(): Date;
}

/** The wall clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  date: () => new Date(),
};
