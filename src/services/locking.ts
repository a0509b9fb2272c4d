import { conflict } from '../errors.ts';
import type { LockRepository } from '../repositories/locks.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LockOptions {
  /** Lease length: a crashed holder blocks others this long at most. */
  ttlMs?: number;
  /** How long to keep trying before answering 409 `conflict`. */
  waitMs?: number;
}

/**
 * Runs `fn` while holding the named lease, so changes to one thing (an account's users, an API key, a
 * configuration) happen one at a time across every instance. Busy past `waitMs` → 409 `conflict`.
 */
export async function withLock<T>(deps: { locks: LockRepository }, name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const ttlMs = options.ttlMs ?? 10_000;
  const deadline = Date.now() + (options.waitMs ?? 3_000);
  for (;;) {
    const lease = await deps.locks.tryAcquire(name, ttlMs);
    if (lease) {
      try {
        return await fn();
      } finally {
        await deps.locks.release(lease);
      }
    }
    if (Date.now() >= deadline) throw conflict('Another change to the same resource is in progress; retry.');
    await sleep(10 + Math.floor(Math.random() * 30));
  }
}
