import type { Changes } from '../lib/changes.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { RevokedGrantRepository } from '../repositories/revokedGrants.ts';

/** Revocations written by other instances may carry a slightly older clock; re-read this much overlap. */
const OVERLAP_MS = 120_000;
/** A grant's access tokens live at most an hour after it was revoked (none are issued after). */
const KEEP_MS = 3600_000 + OVERLAP_MS;

/**
 * The revoked grant ids (and revoked token, user and client keys, see RevokedGrantRepository), held in memory and refreshed from `revoked_grants` incrementally (by
 * `revoked_at`) once the view is older than `refreshMs`. A request waits for a due refresh rather than
 * using a stale view, so a revoked grant's JWTs are refused at most `refreshMs` after the revocation is
 * written, with no database read on the other requests. If the database is unreachable the refresh
 * fails and the request fails with it (503): revocation is never skipped.
 */
export class RevokedGrantCache {
  readonly #repo: RevokedGrantRepository;
  readonly #refreshMs: number;
  readonly #revoked = new Map<string, number>();
  #loadedAt = 0;
  #since = new Date(0);
  #refreshing: Promise<void> | undefined;

  readonly #changes: Changes;
  /** When a refresh is due is measured by it; `revoked_at` (written by the system clock) is compared in real time. */
  readonly #clock: Clock;
  readonly #onRevoked = (key: string, at: Date) => void this.#revoked.set(key, at.getTime());

  constructor(repo: RevokedGrantRepository, refreshSeconds: number, changes: Changes, clock: Clock = systemClock) {
    this.#repo = repo;
    this.#clock = clock;
    this.#refreshMs = refreshSeconds * 1000;
    this.#changes = changes;
    // Revocations written by this process count at once, without waiting for the next refresh.
    changes.on('revoked', this.#onRevoked);
  }

  /** Stops following this process's revocations. */
  close(): void {
    this.#changes.off('revoked', this.#onRevoked);
  }

  /** Whether any of the keys (a grant id, or keys made by revokedTokenKey and the like) is revoked. */
  async isRevoked(...keys: string[]): Promise<boolean> {
    if (this.#clock.now() - this.#loadedAt >= this.#refreshMs) await this.refresh();
    return keys.some((key) => this.#revoked.has(key));
  }

  refresh(): Promise<void> {
    this.#refreshing ??= this.#load().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #load(): Promise<void> {
    const started = Date.now();
    const due = this.#clock.now();
    const rows = await this.#repo.revokedSince(this.#since);
    for (const row of rows) this.#revoked.set(row.id, row.revoked_at.getTime());
    for (const [id, at] of this.#revoked) if (at < started - KEEP_MS) this.#revoked.delete(id);
    this.#since = new Date(started - OVERLAP_MS);
    this.#loadedAt = due;
  }
}
