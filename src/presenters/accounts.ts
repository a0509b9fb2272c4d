import type { AccountDoc } from '../repositories/accounts.ts';

/** An account with how much is in it, as the admin CLI shows it (/v1 never exposes other accounts). */
export interface AccountSummary {
  account: AccountDoc;
  users: number;
  oauth_clients: number;
  projects: number;
}

/** What `slipway accounts list|get --json` prints. */
export type Account = {
  id: string;
  name: string;
  users: number;
  oauth_clients: number;
  projects: number;
  created_at: string;
};

export function presentAccount(summary: AccountSummary): Account {
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
