import { systemPrincipal } from '../domain/principal.ts';
import { notFound } from '../errors.ts';
import type { AccountDoc } from '../repositories/accounts.ts';
import type { Repositories } from '../repositories/index.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { recordEvent } from './events.ts';
import { type Actor } from '../domain/principal.ts';
import type { Services } from './index.ts';
import { revokeUserAccess } from './users.ts';

/**
 * Accounts (tenants) for operators: the admin CLI lists, shows and deletes them. /v1 never exposes
 * other accounts; a user's account comes with the user (`users create`).
 */

export interface AccountSummary {
  account: AccountDoc;
  users: number;
  oauth_clients: number;
  projects: number;
}

export function presentAccount(summary: AccountSummary) {
  const { account } = summary;
  return {
    id: account._id,
    name: account.name,
    users: summary.users,
    oauth_clients: summary.oauth_clients,
    projects: summary.projects,
    created_at: account.created_at.toISOString(),
  };
}

export async function listAccounts(repos: Pick<Repositories, 'accounts'>, page: PageRequest): Promise<PageResult<AccountDoc>> {
  return await repos.accounts.page(page);
}

async function summarize(repos: Repositories, account: AccountDoc): Promise<AccountSummary> {
  const one = { page: 1, per_page: 1 };
  const [users, clients, projects] = await Promise.all([
    repos.users.page(account._id, one),
    repos.oauthClients.page(account._id, one),
    repos.projects.page({ accountId: account._id }, one),
  ]);
  return { account, users: users.total, oauth_clients: clients.total, projects: projects.total };
}

export async function getAccount(repos: Repositories, id: string): Promise<AccountSummary> {
  const account = await repos.accounts.findById(id);
  if (!account) throw notFound('No such account.');
  return await summarize(repos, account);
}

export async function summarizeAccounts(repos: Repositories, accounts: AccountDoc[]): Promise<AccountSummary[]> {
  return await Promise.all(accounts.map((a) => summarize(repos, a)));
}

/** More than any account could hold: every loop below ends even if deletions keep failing silently. */
const MAX_ROUNDS = 10_000;

/**
 * Deletes an account and everything in it, each through the service that owns it, so every rule of a
 * single deletion applies: OAuth clients (their grants revoked), projects (with their deployments and
 * configurations, their API keys revoked), users (their grants, sessions, consents and setup links
 * ended; the last-owner rule does not apply, the whole account goes), then the account itself. The
 * audit log of the account is kept. Safe to run again after an interruption.
 */
export async function deleteAccount(
  repos: Repositories,
  services: Services,
  id: string,
  actor: Actor,
  progress: (line: string) => void = () => undefined,
): Promise<{ account: AccountDoc; deleted: { oauth_clients: number; projects: number; users: number; revoked_grants: number } }> {
  const { account } = await getAccount(repos, id);
  const deleted = { oauth_clients: 0, projects: 0, users: 0, revoked_grants: 0 };
  const first = { page: 1, per_page: 100 };

  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { items } = await repos.oauthClients.page(account._id, first);
    if (!items.length) break;
    for (const client of items) {
      const result = await services.oauthClients.delete(systemPrincipal(account._id), client._id).catch(ignoreGone);
      if (result) {
        deleted.oauth_clients++;
        deleted.revoked_grants += result.revokedGrants;
      }
    }
    progress(`deleted ${deleted.oauth_clients} OAuth client(s)`);
  }

  const system = systemPrincipal(account._id);
  const { projects } = services;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { items } = await projects.list(system, first);
    if (!items.length) break;
    for (const project of items) {
      const result = await projects.delete(system, project._id).then(() => true, ignoreGone);
      if (result) deleted.projects++;
    }
    progress(`deleted ${deleted.projects} project(s)`);
  }

  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { items } = await repos.users.page(account._id, first);
    if (!items.length) break;
    for (const user of items) {
      const removed = await repos.users.deleteIfRole(account._id, user._id, user.role);
      if (!removed) continue;
      const revoked = await revokeUserAccess(services.users, removed._id);
      deleted.users++;
      deleted.revoked_grants += revoked;
      await recordEvent(repos, { accountId: account._id, type: 'user.deleted', actor, data: { user_id: removed._id, email: removed.email, role: removed.role, revoked_grants: revoked } });
    }
    progress(`deleted ${deleted.users} user(s)`);
  }

  await repos.accounts.delete(account._id);
  return { account, deleted };
}

function ignoreGone(err: unknown): undefined {
  if ((err as { status?: number }).status === 404) return undefined;
  throw err;
}
