import type { Changes } from '../lib/changes.ts';
import type { OAuthClientDoc, OAuthClientRepository } from '../repositories/oauthClients.ts';

/** What tells one built-in client from another (the dashboard, the CLI). */
export type FirstPartyClient = Omit<OAuthClientDoc, 'created_at' | 'updated_at' | 'account_id' | 'token_endpoint_auth_method' | 'first_party' | 'client_secret_hash'>;

/**
 * Registers a first-party public client of this server (account `system`, no secret) as the code
 * defines it, at every start: the same record however many instances start at once. The instances'
 * client caches are told, as what it may do can have changed with the version or the configuration.
 */
export async function registerFirstPartyClient(deps: { oauthClients: OAuthClientRepository; changes: Changes }, client: FirstPartyClient): Promise<void> {
  const { _id, ...rest } = client;
  await deps.oauthClients.upsertDefined({ _id, account_id: 'system', ...rest, token_endpoint_auth_method: 'none', first_party: true, client_secret_hash: null }, new Date());
  deps.changes.emit('oauthClientsChanged');
}
