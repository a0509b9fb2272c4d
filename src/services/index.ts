import type { Config } from '../config/index.ts';
import type { Changes } from '../lib/changes.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import type { Repositories } from '../repositories/index.ts';
import { AccountService } from './accounts.ts';
import { ApiKeyService } from './apiKeys.ts';
import { ConfigurationService } from './configurations.ts';
import { DeploymentService } from './deployments.ts';
import { EventService } from './events.ts';
import { LoginService } from './login.ts';
import { OAuthClientService } from './oauthClients.ts';
import { ProjectService } from './projects.ts';
import { QuotaService } from './quotas.ts';
import { UserService } from './users.ts';
import { WebhookService } from './webhooks.ts';

/**
 * Every service of the process, built once by the composition root (src/container.ts) and used by
 * /v1, the dashboard and the admin CLI alike: one class per resource, each acting for a principal.
 */
export interface Services {
  projects: ProjectService;
  deployments: DeploymentService;
  configurations: ConfigurationService;
  apiKeys: ApiKeyService;
  users: UserService;
  accounts: AccountService;
  oauthClients: OAuthClientService;
  webhooks: WebhookService;
  events: EventService;
  quotas: QuotaService;
  login: LoginService;
}

export interface ServiceDeps {
  repos: Repositories;
  secretBox: SecretBox;
  changes: Changes;
  /** For the webhook target policy (`webhookAllowLoopback`). */
  config: Config;
}

export function createServices({ repos, secretBox, changes, config }: ServiceDeps): Services {
  const shared = { ...repos, secretBox, changes };
  const quotas = new QuotaService(repos.quotaSlots, {
    projects: config.quotaProjects,
    oauth_clients: config.quotaOauthClients,
    api_keys: config.quotaApiKeys,
    webhooks: config.quotaWebhooks,
    users: config.quotaUsers,
  });
  const projects = new ProjectService(repos, quotas);
  const deployments = new DeploymentService(repos, projects);
  const configurations = new ConfigurationService({ ...shared, projects });
  const apiKeys = new ApiKeyService({ ...shared, projects, quotas });
  // docs/product.md §5: deleting a project removes its configurations and revokes its API keys.
  projects.onDelete(async (project, principal) => {
    await repos.configurations.deleteAllForProject(project.account_id, project._id);
    await apiKeys.revokeAllForProject(principal, project);
  });
  const users = new UserService({ ...repos, changes }, quotas);
  const oauthClients = new OAuthClientService({ repos, changes, quotas });
  const accounts = new AccountService(repos, { projects, users, oauthClients, quotas });
  return {
    projects,
    deployments,
    configurations,
    apiKeys,
    users,
    accounts,
    oauthClients,
    webhooks: new WebhookService({ repos, secretBox, config, quotas }),
    events: new EventService(repos),
    quotas,
    login: new LoginService({ repos, config }),
  };
}
