import { systemPrincipal } from '../domain/principal.ts';
import { found } from '../errors.ts';
import type { AccountDoc } from '../repositories/accounts.ts';
import type { Repositories } from '../repositories/index.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { AccountSummary } from '../presenters/accounts.ts';
import type { OAuthClientService } from './oauthClients.ts';
import type { ProjectService } from './projects.ts';
import type { QuotaService } from './quotas.ts';
import type { UserService } from './users.ts';
import { Service } from './service.ts';

/** More than any account could hold: every loop below ends even if deletions keep failing silently. */
const MAX_ROUNDS = 10_000;

/**
 * Accounts (tenants), for the operator alone: the admin CLI lists, shows and deletes them. /v1 never
 * exposes other accounts; a user's account comes with the user (`UserService.createByOperator`). No
 * principal is taken: no principal of an account may act on accounts, and the operator acts in each
 * account as `systemPrincipal(accountId)`.
 */
export interface AccountServiceDeps extends Pick<Repositories, 'accounts'> {
  /** What is in an account is counted and deleted through the service that owns it. */
  projects: ProjectService;
  users: UserService;
  oauthClients: OAuthClientService;
  quotas: QuotaService;
}

export class AccountService extends Service<AccountServiceDeps> {
  async list(page: PageRequest): Promise<PageResult<AccountSummary>> {
    const { items, total } = await this.deps.accounts.page(page);
    return { items: await Promise.all(items.map((a) => this.#summarize(a))), total };
  }

  async get(id: string): Promise<AccountSummary> {
    return await this.#summarize(await this.#find(id));
  }

  async #find(id: string): Promise<AccountDoc> {
    return found(await this.deps.accounts.findById(id), 'account');
  }

  async #summarize(account: AccountDoc): Promise<AccountSummary> {
    const one = { page: 1, per_page: 1 };
    const system = systemPrincipal(account._id);
    const [users, clients, projects] = await Promise.all([
      this.deps.users.list(system, one),
      this.deps.oauthClients.list(system, one),
      this.deps.projects.list(system, one),
    ]);
    return { account, users: users.total, oauth_clients: clients.total, projects: projects.total };
  }

  /**
   * Deletes an account and everything in it, each through the service that owns it, so every rule of a
   * single deletion applies: OAuth clients (their grants revoked), projects (with their deployments and
   * configurations, their API keys revoked), users (their grants, sessions, consents and setup links
   * ended; the last-owner rule does not apply, the whole account goes), then the account itself. The
   * operator acts as `systemPrincipal(id)`. The audit log of the account is kept. Safe to run again
   * after an interruption.
   */
  async delete(
    id: string,
    progress: (line: string) => void = () => undefined,
  ): Promise<{ account: AccountDoc; deleted: { oauth_clients: number; projects: number; users: number; revoked_grants: number } }> {
    const account = await this.#find(id);
    const system = systemPrincipal(account._id);
    const deleted = { oauth_clients: 0, projects: 0, users: 0, revoked_grants: 0 };
    const first = { page: 1, per_page: 100 };

    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { items } = await this.deps.oauthClients.list(system, first);
      if (!items.length) break;
      for (const client of items) {
        const result = await this.deps.oauthClients.delete(system, client._id).catch(ignoreGone);
        if (result) {
          deleted.oauth_clients++;
          deleted.revoked_grants += result.revokedGrants;
        }
      }
      progress(`deleted ${deleted.oauth_clients} OAuth client(s)`);
    }

    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { items } = await this.deps.projects.list(system, first);
      if (!items.length) break;
      for (const project of items) {
        const result = await this.deps.projects.delete(system, project._id).then(() => true, ignoreGone);
        if (result) deleted.projects++;
      }
      progress(`deleted ${deleted.projects} project(s)`);
    }

    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { items } = await this.deps.users.list(system, first);
      if (!items.length) break;
      for (const user of items) {
        // Changed or removed meanwhile: the next round sees it as it is now.
        const result = await this.deps.users.deleteWithAccount(system, user._id).catch(ignoreGoneOrChanged);
        if (!result) continue;
        deleted.users++;
        deleted.revoked_grants += result.revokedGrants;
      }
      progress(`deleted ${deleted.users} user(s)`);
    }

    await this.deps.quotas.releaseAccount(account._id);
    await this.deps.accounts.delete(account._id);
    return { account, deleted };
  }
}

function ignoreGone(err: unknown): undefined {
  if ((err as { status?: number }).status === 404) return undefined;
  throw err;
}

function ignoreGoneOrChanged(err: unknown): undefined {
  if ((err as { status?: number }).status === 409) return undefined;
  return ignoreGone(err);
}
