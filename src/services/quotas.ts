import { quotaExceeded } from '../errors.ts';
import type { Principal } from '../domain/principal.ts';
import { can } from '../domain/policy.ts';
import { QUOTA_KINDS, slotId, type QuotaKind, type QuotaSlotRepository } from '../repositories/quotaSlots.ts';

/** How many of each counted resource one account may hold (configuration: `quota*`). */
export type QuotaLimits = Record<QuotaKind, number>;

/** For seeds and tests that build services by hand and are not about quotas. */
export const NO_QUOTAS: QuotaLimits = { projects: 1e9, oauth_clients: 1e9, api_keys: 1e9, webhooks: 1e9, users: 1e9 };

export interface QuotaUsage {
  kind: QuotaKind;
  used: number;
  limit: number;
}

const NOUNS: Record<QuotaKind, string> = { projects: 'projects', oauth_clients: 'OAuth clients', api_keys: 'active API keys', webhooks: 'webhook endpoints', users: 'users' };

/** How many rounds a create looks for a free slot before it is refused (slots freed meanwhile are seen). */
const ROUNDS = 3;

/**
 * Per-account quotas (OWASP API4: one tenant cannot fill the database for everyone). Every counted
 * resource holds a slot (repositories/quotaSlots.ts) taken before it is written and given back when it
 * is deleted or revoked, so concurrent creates at the edge of a quota make exactly as many resources as
 * there were free slots. The operator (the admin CLI) is not limited, but what it creates is counted.
 */
export class QuotaService {
  readonly #slots: QuotaSlotRepository;
  readonly #limits: QuotaLimits;

  constructor(slots: QuotaSlotRepository, limits: QuotaLimits) {
    this.#slots = slots;
    this.#limits = limits;
  }

  /**
   * Runs `create` (which writes resource `resourceId`) holding a slot of the account's `kind` quota: 403
   * `quota_exceeded` when none is free. If `create` fails, the slot it took is given back.
   */
  async withSlot<T>(principal: Pick<Principal, 'kind' | 'accountId'>, kind: QuotaKind, resourceId: string, create: () => Promise<T>): Promise<T> {
    const taken = can(principal, 'exceed', 'quota') ? await this.#takeUnlimited(principal.accountId, kind, resourceId) : await this.#take(principal.accountId, kind, resourceId);
    try {
      return await create();
    } catch (err) {
      if (taken) await this.#slots.release(kind, resourceId).catch(() => undefined);
      throw err;
    }
  }

  /** Gives a deleted (or revoked) resource's slot back. */
  async release(kind: QuotaKind, resourceId: string): Promise<void> {
    await this.#slots.release(kind, resourceId);
  }

  /** Every slot of an account (the account is being deleted). */
  async releaseAccount(accountId: string): Promise<void> {
    await this.#slots.deleteForAccount(accountId);
  }

  /** Each quota of the principal's account and how much of it is used. */
  async usage(principal: Pick<Principal, 'accountId'>): Promise<QuotaUsage[]> {
    return await Promise.all(QUOTA_KINDS.map(async (kind) => ({ kind, used: await this.#slots.count(principal.accountId, kind), limit: this.#limits[kind] })));
  }

  /** True when this call inserted the slot, false when the resource held one already (a retried request). */
  async #take(accountId: string, kind: QuotaKind, resourceId: string): Promise<boolean> {
    const limit = this.#limits[kind];
    const own = slotId(kind, resourceId);
    for (let round = 0; round < ROUNDS; round++) {
      const slots = await this.#slots.list(accountId, kind);
      if (slots.some((s) => s._id === own)) return false;
      if (slots.length >= limit) break;
      // Unlimited slots (negative numbers) use up the quota too: the numbered range shrinks by as many.
      const numbered = limit - slots.filter((s) => s.n < 0).length;
      const used = new Set(slots.map((s) => s.n));
      for (let n = 0; n < numbered; n++) {
        if (used.has(n)) continue;
        if ((await this.#slots.tryInsert(accountId, kind, resourceId, n)) === 'inserted') return true;
        if (await this.#slots.exists(kind, resourceId)) return false;
      }
    }
    throw quotaExceeded(kind, limit, NOUNS[kind]);
  }

  async #takeUnlimited(accountId: string, kind: QuotaKind, resourceId: string): Promise<boolean> {
    if (await this.#slots.exists(kind, resourceId)) return false;
    await this.#slots.insertUnlimited(accountId, kind, resourceId);
    return true;
  }
}
