import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config/index.ts';
import { sourceKey } from '../../http/clientAddress.ts';
import { SharedBudget } from '../../repositories/sharedBudget.ts';
import type { RateLimitRepository } from '../../repositories/rateLimits.ts';

const WINDOW_SECONDS = 60;

type TokenLimits = Pick<Config, 'tokenRateLimitPerMinute' | 'tokenFailuresPerSourcePerMinute' | 'tokenFailuresPerClientAndSourcePerMinute'>;

/** A token of a client's budget held by a request while it is handled (TokenBudgets.reserve). */
export interface Reservation {
  /** Gives the token back: the request issued nothing. */
  release(): void;
}

/**
 * The token endpoint's budgets (docs/security.md, "Token endpoint budgets"), per minute and shared by every
 * instance through the rate-limit collection:
 * - failed requests from one source (address, IPv6 by /64): junk of any kind, at any clients;
 * - failed requests naming one client from one source;
 * - tokens issued to one client (docs/product.md §6: 600). A request claims its token once the client
 *   has authenticated, before anything is issued, and gives it back if it fails, so requests an
 *   outsider can send (a wrong secret, a junk refresh token) never spend it, and however many requests
 *   are in flight on however many instances, no more than the budget is ever issued (a SharedBudget:
 *   shares of the minute's budget claimed by unique inserts).
 * A source or pair over its budget, or a client whose tokens are spent, is refused (429) until the end
 * of the minute. Each instance remembers what it learned is spent, so a refused request costs no
 * database round trip; another instance learns it from the shared count at its own first failure.
 */
export class TokenBudgets {
  readonly #repo: RateLimitRepository;
  readonly #limits: TokenLimits;
  /** Tokens issued per client, keyed `token:<client>` as the per-client limit always was. */
  readonly #issued: SharedBudget;
  /** Budget key → end of the window (ms) in which it is spent. Bounded: the oldest are forgotten first. */
  readonly #spent = new LRUCache<string, number>({ max: 100_000 });
  /**
   * Budget key → failures this instance counted in the current window. FerretDB applies `$inc` as
   * read-modify-write, so concurrent failures on two instances can be lost from the shared count; this
   * instance also refuses once its own count reaches the budget, so N instances admit at most N budgets.
   */
  readonly #own = new LRUCache<string, { windowEnd: number; count: number }>({ max: 100_000 });

  constructor(repo: RateLimitRepository, limits: TokenLimits) {
    this.#repo = repo;
    this.#limits = limits;
    this.#issued = new SharedBudget(repo, limits.tokenRateLimitPerMinute, WINDOW_SECONDS, 'token');
  }

  /** Seconds until the request may be tried again when the source is over its failure budget; undefined if not. */
  sourceRefusal(source: string, now = Date.now()): number | undefined {
    return this.#refusal([failuresKey(source)], now);
  }

  /** Like sourceRefusal, for a request naming `clientId`: the pair's failures, and the client's tokens issued. */
  clientRefusal(source: string, clientId: string, now = Date.now()): number | undefined {
    const pair = this.#refusal([pairKey(clientId, source)], now);
    const tokens = this.#issued.spentFor(clientPart(clientId), now);
    return pair === undefined && tokens === undefined ? undefined : Math.max(pair ?? 0, tokens ?? 0);
  }

  /** Counts a failed request from `source` (naming `clientId`, when it named one). */
  async failed(source: string, clientId: string | undefined, now = Date.now()): Promise<void> {
    const counts: Array<[string, number]> = [[failuresKey(source), this.#limits.tokenFailuresPerSourcePerMinute]];
    if (clientId) counts.push([pairKey(clientId, source), this.#limits.tokenFailuresPerClientAndSourcePerMinute]);
    await Promise.all(
      counts.map(async ([key, limit]) => {
        // Already refused here: counting further would only cost a write.
        if (this.#refusal([key], now) !== undefined) return;
        const windowEnd = windowEndOf(now);
        const own = this.#own.get(key);
        const ownCount = own && own.windowEnd === windowEnd ? ++own.count : 1;
        if (ownCount === 1) this.#own.set(key, { windowEnd, count: 1 });
        if (ownCount >= limit) this.#spend(key, now);
        const result = await this.#repo.hit(key, limit, WINDOW_SECONDS, now);
        if (result.count >= limit) this.#spend(key, now);
      }),
    );
  }

  /**
   * Claims one of `clientId`'s tokens for a request that authenticated, before it issues anything: a
   * Reservation, or the seconds until the next minute when the client's tokens are spent. The request
   * keeps it if it issues tokens and releases it if it fails.
   */
  async reserve(clientId: string, now = Date.now()): Promise<Reservation | { retryAfter: number }> {
    const key = clientPart(clientId);
    const taken = await this.#issued.take(key, now);
    if (taken.count === null) return { retryAfter: taken.resetSeconds };
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#issued.giveBack(key, taken.window);
      },
    };
  }

  #spend(key: string, now: number): void {
    this.#spent.set(key, windowEndOf(now));
  }

  #refusal(keys: string[], now: number): number | undefined {
    let until: number | undefined;
    for (const key of keys) {
      const end = this.#spent.get(key);
      if (end === undefined) continue;
      if (end <= now) this.#spent.delete(key);
      else until = Math.max(until ?? 0, end);
    }
    return until === undefined ? undefined : Math.max(1, Math.ceil((until - now) / 1000));
  }
}

function windowEndOf(now: number): number {
  const windowMs = WINDOW_SECONDS * 1000;
  return Math.floor(now / windowMs) * windowMs + windowMs;
}

/** A client id as sent (any text, any length) made fit for a counter's key. */
function clientPart(clientId: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(clientId) ? clientId : `h-${createHash('sha256').update(clientId).digest('base64url').slice(0, 22)}`;
}

// A source is a client address (http/clientAddress.ts), counted by its budget: IPv6 by /64.
const failuresKey = (source: string) => `token-fail-src:${sourceKey(source)}`;
const pairKey = (clientId: string, source: string) => `token-fail-pair:${clientPart(clientId)}:${sourceKey(source)}`;
