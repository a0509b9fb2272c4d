import type { Configuration } from 'oidc-provider';
import type { ProviderStorage } from './storage.ts';
import { exchangedTokenClaims } from './tokenExchange.ts';

type Lookups = Pick<ProviderStorage, 'users' | 'oauthClients'>;

/**
 * The signed-in user as the provider sees them: from memory when read in the last
 * PRINCIPAL_CACHE_SECONDS (removal or a change made on this instance applies at once); a removed user's
 * grants are deleted, so their refresh tokens fail anyway.
 */
export function findAccount(repos: Lookups): Configuration['findAccount'] {
  return async (_ctx, sub) => {
    // `sub` is a membership (usr_…): one account of the person, the one every token of this grant acts in.
    const user = await repos.users.findByIdCached(sub);
    if (!user || user.status !== 'active') return undefined;
    // email_verified: Slipway does not verify addresses (an admin types them in), so it says false.
    return { accountId: user._id, tenant: user.account_id, claims: () => ({ sub: user._id, name: user.name, email: user.email, email_verified: false }) };
  };
}

/**
 * Every access token names the tenant it acts for (`acct`): the user's account, or for
 * client_credentials the account that registered the client; a user's token its grant (`gid`). The user
 * and the client were loaded moments ago by this same request (findAccount, client authentication);
 * their tenant is taken from there, and read from the database only otherwise.
 */
export function extraTokenClaims(repos: Lookups): Configuration['extraTokenClaims'] {
  return async (ctx, token) => {
    if (token.kind !== 'AccessToken' && token.kind !== 'ClientCredentials') return undefined;
    // A token issued by the CI token exchange acts as a project (docs/product.md §13).
    const exchanged = exchangedTokenClaims(ctx);
    if (exchanged) return exchanged;
    const accountId = (token as { accountId?: string }).accountId;
    if (accountId) {
      const grantId = (token as { grantId?: string }).grantId;
      const loaded = ctx?.oidc?.account as { accountId?: string; tenant?: string } | undefined;
      if (loaded?.accountId === accountId && loaded.tenant) return { acct: loaded.tenant, gid: grantId };
      const user = await repos.users.findByIdCached(accountId);
      return user ? { acct: user.account_id, gid: grantId } : undefined;
    }
    const loadedClient = ctx?.oidc?.client;
    // Extra client metadata (./clients.ts) is held on the client under its own name (only the standard
    // metadata is camelCased); client.metadata() would rebuild every property's name for this one value.
    const tenant = loadedClient && loadedClient.clientId === token.clientId ? (loadedClient as unknown as { account_id?: unknown }).account_id : undefined;
    if (typeof tenant === 'string') return { acct: tenant };
    const client = await repos.oauthClients.findByIdCached(token.clientId!);
    return client ? { acct: client.account_id } : undefined;
  };
}
