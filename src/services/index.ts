import type { Config } from '../config/index.ts';
import type { Changes } from '../lib/changes.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import type { Repositories } from '../repositories/index.ts';
import { AccountService } from './accounts.ts';
import { ApiKeyService } from './apiKeys.ts';
import { ConfigurationService } from './configurations.ts';
import { DashboardClientService } from './dashboardClient.ts';
import { CliClientService } from './cliClient.ts';
import { DeploymentService } from './deployments.ts';
import { DeploymentScheduler } from './deploymentScheduler.ts';
import { EnvironmentService } from './environments.ts';
import { DeploymentLogService } from './deploymentLogs.ts';
import { DeploymentFeeds, LogFollowers, StreamPlaces } from './logFollowers.ts';
import { EventLog } from './eventLog.ts';
import { EventService } from './events.ts';
import { GrantRevocation } from './grantRevocation.ts';
import { LockService } from './locking.ts';
import { LoginService } from './login.ts';
import { OAuthClientService } from './oauthClients.ts';
import { ProjectService } from './projects.ts';
import { QuotaService } from './quotas.ts';
import { SessionService } from './sessions.ts';
import { UserService } from './users.ts';
import { InvitationService } from './invitations.ts';
import { IssuerKeys } from './issuerKeys.ts';
import { TokenExchangeService } from './tokenExchange.ts';
import { TrustPolicyService } from './trustPolicies.ts';
import { WebhookDispatcher, type DeliveryMetrics } from './webhookDispatcher.ts';
import { WebhookFanOut } from './webhookFanOut.ts';
import { WebhookService } from './webhooks.ts';

/**
 * Every service of the process, built once by the composition root (src/container.ts) and used by
 * /v1, the dashboard and the admin CLI alike: one class per resource, each acting for a principal.
 */
export interface Services {
  projects: ProjectService;
  deployments: DeploymentService;
  /** Environments and their rules (docs/product.md §9). */
  environments: EnvironmentService;
  /** Queues waiting deployments when they are due (src/server.ts starts it; the CLI never does). */
  deploymentScheduler: DeploymentScheduler;
  configurations: ConfigurationService;
  /** Deployment logs: appends, pages, the sweep (docs/product.md §10). */
  deploymentLogs: DeploymentLogService;
  /** Live log and deployment delivery on this instance (event streams). */
  logFollowers: LogFollowers;
  /** The event streams each credential holds open, across instances. */
  streamPlaces: StreamPlaces;
  /** Live project deployment changes on this instance (event streams). */
  deploymentFeeds: DeploymentFeeds;
  apiKeys: ApiKeyService;
  users: UserService;
  invitations: InvitationService;
  accounts: AccountService;
  oauthClients: OAuthClientService;
  webhooks: WebhookService;
  events: EventService;
  quotas: QuotaService;
  /** Dashboard session tokens (cookie or Bearer `slws_…`). */
  sessions: SessionService;
  /** Makes webhook delivery attempts once started (src/server.ts starts it; the CLI never does). */
  webhookDispatcher: WebhookDispatcher;
  /** Signing in to the authorization server, and the consent that follows. */
  login: LoginService;
  /** The dashboard's own OAuth client, the user of a sign-in, its one-time form claims. */
  dashboardClient: DashboardClientService;
  cliClient: CliClientService;
  /** A project's trust policies for CI tokens (docs/product.md §13). */
  trustPolicies: TrustPolicyService;
  /** RFC 8693: whether a CI token may be exchanged, for the authorization server's token endpoint. */
  tokenExchange: TokenExchangeService;
}

export interface ServiceDeps {
  repos: Repositories;
  secretBox: SecretBox;
  changes: Changes;
  /** Quotas, the webhook target policy and the dispatcher's timings. */
  config: Config;
  logger: Logger;
  /** The process's metrics handle (src/http/metrics.ts): the dispatcher reports its attempts to it. */
  metrics: DeliveryMetrics;
  /** What decides by time reads it (src/lib/clock.ts): login windows, key and session expiries, webhook timers. */
  clock: Clock;
}

/**
 * Builds every service one way: each takes one typed object naming exactly what it uses (its
 * repositories, the shared EventLog, LockService, QuotaService, GrantRevocation, and the services it
 * asks), and nothing else is handed a bag of repositories.
 */
export function createServices({ repos, secretBox, changes, config, logger, metrics, clock }: ServiceDeps): Services {
  const fanOut = new WebhookFanOut({ webhooks: repos.webhooks, webhookDeliveries: repos.webhookDeliveries, webhookQueue: repos.webhookQueue });
  const eventLog = new EventLog({ events: repos.events, fanOut });
  const locks = new LockService({ locks: repos.locks });
  const grants = new GrantRevocation({ revokedGrants: repos.revokedGrants, oidcArtifacts: repos.oidcArtifacts });
  const limits = { projects: config.quotaProjects, oauth_clients: config.quotaOauthClients, api_keys: config.quotaApiKeys, webhooks: config.quotaWebhooks, users: config.quotaUsers };
  const quotas = new QuotaService({ quotaSlots: repos.quotaSlots, limits });

  const projects = new ProjectService({ projects: repos.projects, deployments: repos.deployments, eventLog, quotas });
  const configurations = new ConfigurationService({ configurations: repos.configurations, eventLog, locks, secretBox, projects });
  const environments = new EnvironmentService({ environments: repos.environments, deployments: repos.deployments, eventLog, locks, projects, clock });
  const deployments = new DeploymentService({
    ...{ deployments: repos.deployments, deploymentReviews: repos.deploymentReviews, deploymentClaims: repos.deploymentClaims },
    ...{ eventLog, projects, environments, configurations, clock },
  });
  const deploymentScheduler = new DeploymentScheduler({ deployments, logger, intervalMs: config.schedulerIntervalMs });
  const apiKeys = new ApiKeyService({
    ...{ apiKeys: repos.apiKeys, apiKeySecrets: repos.apiKeySecrets, apiKeyUsage: repos.apiKeyUsage },
    ...{ eventLog, locks, changes, projects, quotas, clock },
  });
  const logLimits = { maxLines: config.logMaxLines, maxBytes: config.logMaxBytes, retentionDays: config.logRetentionDays };
  const deploymentLogs = new DeploymentLogService({ deploymentLogs: repos.deploymentLogs, deployments: repos.deployments, projects, configurations, clock, limits: logLimits });
  const logFollowers = new LogFollowers({ deploymentLogs: repos.deploymentLogs, deployments: repos.deployments, logs: deploymentLogs, clock, logger, pollIntervalMs: config.logPollIntervalMs });
  const deploymentFeeds = new DeploymentFeeds({ deployments: repos.deployments, logger, pollIntervalMs: config.logPollIntervalMs });
  const streamPlaces = new StreamPlaces({ logStreamSlots: repos.logStreamSlots, clock, perCredential: config.logStreamsPerCredential });
  const trustPolicies = new TrustPolicyService({
    ...{ trustPolicies: repos.trustPolicies, revokedGrants: repos.revokedGrants, eventLog, projects, clock },
    ...{ baseUrl: config.publicUrl, allowLoopback: config.federationAllowLoopback },
  });
  const issuerKeys = new IssuerKeys({ federation: repos.federation, targets: { allowLoopback: config.federationAllowLoopback }, clock, logger });
  const tokenExchange = new TokenExchangeService({ trustPolicies: repos.trustPolicies, federation: repos.federation, issuerKeys, eventLog, clock, logger });
  // docs/product.md §5: deleting a project removes its configurations and revokes its API keys (§13: and its trust policies).
  projects.onDelete(async (project, principal) => {
    await repos.configurations.deleteAllForProject(project.account_id, project._id);
    await repos.environments.deleteByProject(project.account_id, project._id);
    await repos.deploymentReviews.deleteByProject(project.account_id, project._id);
    await repos.deploymentClaims.deleteByProject(project.account_id, project._id);
    await repos.deploymentLogs.deleteByProject(project.account_id, project._id);
    await apiKeys.revokeAllForProject(principal, project);
    await trustPolicies.deleteAllForProject(project);
  });
  // What ends a user's or a client's access: their grants, consents and authorization-server sessions.
  const access = { consents: repos.consents, revokedGrants: repos.revokedGrants, oidcArtifacts: repos.oidcArtifacts };
  const login = new LoginService({
    ...{ users: repos.users, identities: repos.identities, rateLimits: repos.rateLimits, oauthClients: repos.oauthClients, accounts: repos.accounts, consents: repos.consents },
    limits: config,
    clock,
  });
  const people = { users: repos.users, identities: repos.identities, accounts: repos.accounts };
  const invitations = new InvitationService({ ...people, invitations: repos.invitations, locks, clock, eventLog, quotas, login });
  const users = new UserService({
    ...{ ...people, userSetupTokens: repos.userSetupTokens, sessions: repos.sessions, ...access },
    ...{ invitations, eventLog, locks, grants, quotas, changes, clock },
  });
  const oauthClients = new OAuthClientService({ oauthClients: repos.oauthClients, accounts: repos.accounts, ...access, eventLog, grants, quotas, changes });
  const accounts = new AccountService({ accounts: repos.accounts, projects, users, oauthClients, quotas });
  const webhookRecords = { webhooks: repos.webhooks, webhookDeliveries: repos.webhookDeliveries, webhookQueue: repos.webhookQueue, webhookCircuits: repos.webhookCircuits };
  const webhooks = new WebhookService({ ...webhookRecords, eventLog, fanOut, quotas, secretBox, config });
  const webhookDispatcher = new WebhookDispatcher({ ...webhookRecords, webhookLeases: repos.webhookLeases, config, logger, secretBox, eventLog, metrics, clock });
  const events = new EventService({ events: repos.events });
  const sessions = new SessionService({ sessions: repos.sessions, users: repos.users, clock });
  const dashboardClient = new DashboardClientService({ oauthClients: repos.oauthClients, users: repos.users, apiKeys: repos.apiKeys, clock, idempotencyKeys: repos.idempotencyKeys, changes, config });
  const cliClient = new CliClientService({ oauthClients: repos.oauthClients, changes });
  return { projects, deployments, environments, deploymentScheduler, configurations, deploymentLogs, logFollowers, streamPlaces, deploymentFeeds, apiKeys, users, invitations, accounts, oauthClients, webhooks, events, quotas, sessions, webhookDispatcher, login, dashboardClient, cliClient, trustPolicies, tokenExchange };
}
