import type { Db } from 'mongodb';
import Provider from 'oidc-provider';
import type { Config } from '../../config/index.ts';
import { behindProxy, proxyModel } from '../../http/clientAddress.ts';
import type { Metrics } from '../../http/metrics.ts';
import type { KeyMaterial } from '../../keys/keystore.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../logger.ts';
import { enforceTokenBudgets, prepareTokenBudgets } from './budgets.ts';
import { compareHashedClientSecrets } from './clientAuth.ts';
import { providerConfiguration } from './configuration.ts';
import { currentRequest, trackCurrentRequest } from './currentRequest.ts';
import { installDeviceFlow } from './deviceFlow.ts';
import { truthfulDiscovery } from './discovery.ts';
import { logProviderEvents } from './events.ts';
import { hashAccessTokensIntoIdTokens, includeSessionIds } from './idTokens.ts';
import { claimProofsOnce } from './replay.ts';
import { installSingleUseRefusals } from './singleUse.ts';
import { createAdapter, type ProviderStorage } from './storage.ts';
import { installAccessTokenLookup, prepareStructuredTokenEndpoints } from './structuredTokens.ts';
import { answerUnavailableWith503 } from './unavailable.ts';
import { installTokenExchange, prepareTokenExchange } from './tokenExchange.ts';
import type { TokenExchangeService } from '../../services/tokenExchange.ts';

export { ACCESS_TOKEN_TTL_SECONDS } from './lifetimes.ts';
export { OIDC_SCOPES } from './scopes.ts';

export interface ProviderDeps {
  config: Config;
  keys: KeyMaterial;
  repos: ProviderStorage;
  db: Db;
  logger: Logger;
  /** The process's metrics handle: token responses, refresh-token reuse, token endpoint refusals. */
  metrics: Metrics;
  /** What Slipway's own budgets are measured by (src/lib/clock.ts); oidc-provider's token lifetimes use the system clock. */
  clock: Clock;
  /** RFC 8693 token exchange for CI (docs/product.md §13): whether a subject token is accepted, and the event. */
  tokenExchange: TokenExchangeService;
}

/**
 * The authorization server: oidc-provider configured from small named parts (each file beside this one
 * holds one of them), then the steps Slipway adds to it, in the order they run.
 */
export function createProvider({ config, keys, repos, db, logger, metrics, clock, tokenExchange }: ProviderDeps): Provider {
  const adapter = createAdapter(db, repos, config, logger, clock);
  prepareStructuredTokenEndpoints();
  prepareTokenBudgets();
  prepareTokenExchange();
  const provider = new Provider(config.issuer, providerConfiguration({ config, keys, repos, logger, adapter }));
  // The provider's own contexts (interaction cookies) read X-Forwarded-Proto only behind a trusted proxy.
  provider.proxy = behindProxy(proxyModel(config));
  installAccessTokenLookup(provider, { config, keys, revokedGrants: repos.revokedGrants });
  // A second use of a code, refresh token, pushed request or interaction, however concurrent: refused the OAuth way.
  installSingleUseRefusals(provider, currentRequest);
  claimProofsOnce(provider, repos);
  includeSessionIds(provider);
  compareHashedClientSecrets(provider);
  trackCurrentRequest(provider);
  hashAccessTokensIntoIdTokens(provider);
  truthfulDiscovery(provider);
  installTokenExchange(provider, tokenExchange, config.apiAudience);
  enforceTokenBudgets(provider, repos, config, logger, metrics, clock);
  // After the budgets: a slow_down it answers counts as a failed token request, a pending answer does not.
  installDeviceFlow(provider, repos, clock);
  logProviderEvents(provider, logger, metrics);
  answerUnavailableWith503(provider);
  return provider;
}
