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

  /**
   * True when this call inserted the slot, false when the resource held one already (a retried request).
   *
   * What is free is the limit less every slot the account holds: the operator's (negative numbers) and
   * any numbered above a quota lowered since count too. A create tries only that many numbers, the
   * lowest free ones (all below the limit), so creates contend for the same numbers and only as many
   * win as there were free places. (Trying every free number below the limit let the numbers of deleted
   * resources be taken while slots outside them still counted: 5 OAuth clients on a quota of 4.) Once
   * its slot is in, a create counts the account's slots, and gives its slot back and tries again if
   * they are over the limit (a slot the operator added meanwhile): of overlapping creates the last to
   * count sees every other's slot, so no interleaving leaves a create above the limit. With every slot
   * numbered below the limit (the usual case) the count cannot be over it.
   */
  async #take(accountId: string, kind: QuotaKind, resourceId: string): Promise<boolean> {
    const limit = this.deps.limits[kind];
    const own = slotId(kind, resourceId);
    const { quotaSlots } = this.deps;
    for (let round = 0; round < ROUNDS; round++) {
      const slots = await quotaSlots.list(accountId, kind);
      if (slots.some((s) => s._id === own)) return false;
      if (slots.length >= limit) break;
      for (const n of lowestFree(slots, limit - slots.length)) {
        if ((await quotaSlots.tryInsert(accountId, kind, resourceId, n)) === 'inserted') {
          if ((await quotaSlots.count(accountId, kind)) <= limit) return true;
          await quotaSlots.release(kind, resourceId);
          break;
        }
        if (await quotaSlots.exists(kind, resourceId)) return false;
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

/** The `count` lowest slot numbers (0 and up) that no slot holds, lowest first (all below the limit, since `count` is what the limit leaves). */
function* lowestFree(slots: { n: number }[], count: number): Generator<number> {
  const used = new Set(slots.map((s) => s.n));
  for (let n = 0, found = 0; found < count; n++) {
    if (used.has(n)) continue;
    found++;
    yield n;
  }
}
