import { quotaExceeded } from '../errors.ts';
import type { Principal } from '../domain/principal.ts';
import { can } from '../domain/policy.ts';
import type { Repositories } from '../repositories/index.ts';
import { QUOTA_KINDS, slotId, type QuotaKind } from '../repositories/quotaSlots.ts';
import { Service } from './service.ts';
export type { QuotaKind } from '../repositories/quotaSlots.ts';

/** How many of each counted resource one account may hold (configuration: `quota*`). */
export type QuotaLimits = Record<QuotaKind, number>;

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
export interface QuotaServiceDeps extends Pick<Repositories, 'quotaSlots'> {
  limits: QuotaLimits;
}

export class QuotaService extends Service<QuotaServiceDeps> {
  /**
   * Runs `create` (which writes resource `resourceId`) holding a slot of the account's `kind` quota: 403
   * `quota_exceeded` when none is free. If `create` fails, the slot it took is given back.
   */
  async withSlot<T>(principal: Pick<Principal, 'kind' | 'accountId'>, kind: QuotaKind, resourceId: string, create: () => Promise<T>): Promise<T> {
    const taken = can(principal, 'exceed', 'quota') ? await this.#takeUnlimited(principal.accountId, kind, resourceId) : await this.#take(principal.accountId, kind, resourceId);
    try {
      return await create();
    } catch (err) {
      if (taken) await this.deps.quotaSlots.release(kind, resourceId).catch(() => undefined);
      throw err;
    }
  }

  /** Gives a deleted (or revoked) resource's slot back. */
  async release(kind: QuotaKind, resourceId: string): Promise<void> {
    await this.deps.quotaSlots.release(kind, resourceId);
  }

  /** Every slot of an account (the account is being deleted). */
  async releaseAccount(accountId: string): Promise<void> {
    await this.deps.quotaSlots.deleteForAccount(accountId);
  }

  /** Each quota of the principal's account and how much of it is used. */
  async usage(principal: Pick<Principal, 'accountId'>): Promise<QuotaUsage[]> {
    return await Promise.all(QUOTA_KINDS.map(async (kind) => ({ kind, used: await this.deps.quotaSlots.count(principal.accountId, kind), limit: this.deps.limits[kind] })));
  }

  /** True when this call inserted the slot, false when the resource held one already (a retried request). */
  async #take(accountId: string, kind: QuotaKind, resourceId: string): Promise<boolean> {
    const limit = this.deps.limits[kind];
    const own = slotId(kind, resourceId);
    for (let round = 0; round < ROUNDS; round++) {
      const slots = await this.deps.quotaSlots.list(accountId, kind);
      if (slots.some((s) => s._id === own)) return false;
      if (slots.length >= limit) break;
      // Unlimited slots (negative numbers) use up the quota too: the numbered range shrinks by as many.
      const numbered = limit - slots.filter((s) => s.n < 0).length;
      const used = new Set(slots.map((s) => s.n));
      for (let n = 0; n < numbered; n++) {
        if (used.has(n)) continue;
        if ((await this.deps.quotaSlots.tryInsert(accountId, kind, resourceId, n)) === 'inserted') return true;
        if (await this.deps.quotaSlots.exists(kind, resourceId)) return false;
      }
    }
    throw quotaExceeded(kind, limit, NOUNS[kind]);
  }

  async #takeUnlimited(accountId: string, kind: QuotaKind, resourceId: string): Promise<boolean> {
    if (await this.deps.quotaSlots.exists(kind, resourceId)) return false;
    await this.deps.quotaSlots.insertUnlimited(accountId, kind, resourceId);
    return true;
  }
}
