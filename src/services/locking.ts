import { conflict } from '../errors.ts';
import type { Repositories } from '../repositories/index.ts';
import { Service } from './service.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LockOptions {
  /** Lease length: a crashed holder blocks others this long at most. */
  ttlMs?: number;
  /** How long to keep trying before answering 409 `conflict`. */
  waitMs?: number;
}

/**
 * Named leases across every instance (src/repositories/locks.ts: generation leases, src/db/claims.ts).
 * Built once by createServices and given to the services that
 * serialise changes (an account's users, an API key, a configuration) or claim something once.
 */
export class LockService extends Service<Pick<Repositories, 'locks'>> {
  /**
   * Runs `fn` while holding the named lease, so changes to one thing happen one at a time across every
   * instance. Busy past `waitMs` → 409 `conflict`.
   */
  async run<T>(name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const ttlMs = options.ttlMs ?? 10_000;
    const deadline = Date.now() + (options.waitMs ?? 3_000);
    for (;;) {
      const lease = await this.deps.locks.tryAcquire(name, ttlMs);
      if (lease) {
        try {
          return await fn();
        } finally {
          await this.deps.locks.release(lease);
        }
      }
      if (Date.now() >= deadline) throw conflict('Another change to the same resource is in progress; retry.');
      await sleep(10 + Math.floor(Math.random() * 30));
    }
  }

  /**
   * Takes the named lease for `ttlMs` and never gives it back: of concurrent callers exactly one gets
   * true (single use: a setup link). Ends only when it expires.
   */
  async claim(name: string, ttlMs: number): Promise<boolean> {
    return (await this.deps.locks.tryAcquire(name, ttlMs)) !== null;
  }

  /**
   * `claim` for a link valid until `until` (by the caller's clock, whose time is `now`): the lease
   * outlives it by a margin, so a request that read the link just before it ended and claims only after
   * the lease ended finds it expired (or gone) when it reads it again, as every holder does once claimed.
   */
  async claimUntil(name: string, until: Date, now: number): Promise<boolean> {
    return await this.claim(name, Math.max(0, until.getTime() - now) + LINK_CLAIM_MARGIN_MS);
  }
}

/** How long a claim outlives its link (see `claimUntil`). */
const LINK_CLAIM_MARGIN_MS = 3600 * 1000;
