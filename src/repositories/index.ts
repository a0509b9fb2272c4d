import type { Collection, Db, Filter } from 'mongodb';
import type { Changes } from '../lib/changes.ts';
import { retryDeadlocks } from '../db/claims.ts';
import { OidcArtifactRepository, ensureOidcIndexes, migrateOidcArtifacts, sweepOidc } from './oidc/index.ts';
import type { MigrationOptions } from './migrations.ts';
import { migrateToIdentities } from './identityMigration.ts';
import { migrateEnvironments } from './environmentMigration.ts';
import { IdentityRepository } from './identities.ts';
import { InvitationRepository } from './invitations.ts';
import { AccountRepository } from './accounts.ts';
import { ApiKeyRepository, type ApiKeyDoc } from './apiKeys.ts';
import { ApiKeySecretRepository } from './apiKeySecrets.ts';
import { ApiKeyUsageRepository } from './apiKeyUsage.ts';
import { ConfigurationRepository } from './configurations.ts';
import { ConsentRepository } from './consents.ts';
import { DataKeyRegistryRepository } from './dataKeyRegistry.ts';
import { DeploymentRepository } from './deployments.ts';
import { DeploymentClaimRepository } from './deploymentClaims.ts';
import { DeploymentReviewRepository } from './deploymentReviews.ts';
import { EnvironmentRepository } from './environments.ts';
import { DeviceCodeLeaseRepository } from './deviceCodeLeases.ts';
import { DeploymentLogRepository } from './deploymentLogs.ts';
import { LogStreamSlotRepository } from './logStreamSlots.ts';
import { DpopProofRepository } from './dpopProofs.ts';
import { EventRepository } from './events.ts';
import { FederationRepository } from './federation.ts';
import { IdempotencyKeyRepository } from './idempotencyKeys.ts';
import { LockRepository } from './locks.ts';
import { OAuthClientRepository } from './oauthClients.ts';

import { ProjectRepository } from './projects.ts';
import { QuotaSlotRepository } from './quotaSlots.ts';
import { RateLimitRepository } from './rateLimits.ts';
import { RevokedGrantRepository } from './revokedGrants.ts';
import { SessionRepository } from './sessions.ts';
import { TrustPolicyRepository } from './trustPolicies.ts';
import { UserRepository } from './users.ts';
import { UserSetupTokenRepository } from './userSetupTokens.ts';
import { WebhookCircuitRepository } from './webhookCircuits.ts';
import { WebhookDeliveryRepository } from './webhookDeliveries.ts';
import { WebhookLeaseRepository } from './webhookLeases.ts';
import { WebhookQueueRepository } from './webhookQueue.ts';
import { WebhookRepository } from './webhooks.ts';

/**
 * `cacheMs`: how long the token endpoint may trust a user or OAuth client read earlier, and an event its
 * account's webhook endpoints (the server passes
 * PRINCIPAL_CACHE_SECONDS; 0, the default for tools and scripts, caches nothing). `now`: the clock
 * those bounds are measured by (the container's, src/lib/clock.ts; default `performance.now`).
 */
export function createRepositories(db: Db, options: { cacheMs?: number; changes: Changes; now?: () => number }) {
  return {
    accounts: new AccountRepository(db),
    users: new UserRepository(db, options),
    identities: new IdentityRepository(db),
    invitations: new InvitationRepository(db),
    oauthClients: new OAuthClientRepository(db, options),
    consents: new ConsentRepository(db),
    rateLimits: new RateLimitRepository(db),
    quotaSlots: new QuotaSlotRepository(db),
    revokedGrants: new RevokedGrantRepository(db, options.changes),
    dpopProofs: new DpopProofRepository(db),
    projects: new ProjectRepository(db),
    deployments: new DeploymentRepository(db),
    environments: new EnvironmentRepository(db),
    deploymentReviews: new DeploymentReviewRepository(db),
    deploymentClaims: new DeploymentClaimRepository(db),
    deploymentLogs: new DeploymentLogRepository(db),
    logStreamSlots: new LogStreamSlotRepository(db),
    idempotencyKeys: new IdempotencyKeyRepository(db),
    sessions: new SessionRepository(db),
    configurations: new ConfigurationRepository(db),
    dataKeyRegistry: new DataKeyRegistryRepository(db),
    apiKeys: new ApiKeyRepository(db),
    apiKeySecrets: new ApiKeySecretRepository(db),
    apiKeyUsage: new ApiKeyUsageRepository(db),
    events: new EventRepository(db),
    userSetupTokens: new UserSetupTokenRepository(db),
    locks: new LockRepository(db),
    oidcArtifacts: new OidcArtifactRepository(db),
    webhooks: new WebhookRepository(db, options),
    webhookDeliveries: new WebhookDeliveryRepository(db),
    webhookQueue: new WebhookQueueRepository(db),
    webhookLeases: new WebhookLeaseRepository(db),
    webhookCircuits: new WebhookCircuitRepository(db),
    deviceCodeLeases: new DeviceCodeLeaseRepository(db),
    trustPolicies: new TrustPolicyRepository(db),
    federation: new FederationRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/**
 * Creates every index and re-keys authorization-server records stored before their ids were hashed.
 * Idempotent: run at start (`once`: one-time passes that read whole collections are skipped after
 * their first run on the database) and by `slipway db migrate` (every pass).
 */
export async function migrate(db: Db, repos: Repositories, options: MigrationOptions = {}): Promise<{ collections: string[] }> {
  // Two instances starting at once create the same indexes: on DocumentDB that may deadlock (retried).
  for (const repo of Object.values(repos)) await retryDeadlocks(() => repo.ensureIndexes());
  await retryDeadlocks(() => ensureOidcIndexes(db));
  await migrateOidcArtifacts(db, options);
  await migrateToIdentities(db, repos.users, repos.identities, options);
  await migrateEnvironments(db, repos, options);
  await backfillQuotaSlots(repos);
  const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  return { collections };
}

/** Resources made before quotas existed get a slot each (once per kind), so they count. */
async function backfillQuotaSlots(repos: Repositories): Promise<void> {
  type Owned = { _id: string; account_id: string };
  const idsOf = <T extends Owned>(collection: Collection<T>, filter: Filter<T> = {}) =>
    collection.find(filter, { projection: { _id: 1, account_id: 1 } }) as unknown as AsyncIterable<Owned>;
  await repos.quotaSlots.backfill('projects', idsOf(repos.projects.collection));
  await repos.quotaSlots.backfill('oauth_clients', idsOf(repos.oauthClients.collection));
  await repos.quotaSlots.backfill('api_keys', idsOf(repos.apiKeys.collection, { status: 'active' } as Filter<ApiKeyDoc>));
  await repos.quotaSlots.backfill('webhooks', idsOf(repos.webhooks.collection));
  await repos.quotaSlots.backfill('users', idsOf(repos.users.collection));
}

/** Removes expired rows everywhere; every instance may run it. */
export async function sweepExpired(db: Db, repos: Repositories, now = new Date()): Promise<number> {
  return (
    (await sweepOidc(db, now)) +
    (await repos.rateLimits.sweep(now)) +
    (await repos.revokedGrants.sweep(now)) +
    (await repos.dpopProofs.sweep(now)) +
    (await repos.idempotencyKeys.sweep(now)) +
    (await repos.sessions.sweep(now)) +
    (await repos.apiKeySecrets.sweep(now)) +
    (await repos.userSetupTokens.sweep(now)) +
    (await repos.invitations.sweep(now)) +
    (await repos.locks.sweep(now)) +
    (await repos.webhookLeases.sweep(now)) +
    (await repos.deviceCodeLeases.sweep(now)) +
    (await repos.logStreamSlots.sweep(now)) +
    (await repos.webhookDeliveries.sweep(now)) +
    (await repos.federation.sweep(now))
  );
}
