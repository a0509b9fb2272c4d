import type { Changes } from '../lib/changes.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import type { Repositories } from '../repositories/index.ts';
import { AccountService } from './accounts.ts';
import { ApiKeyService } from './apiKeys.ts';
import { ConfigurationService } from './configurations.ts';
import { DeploymentService } from './deployments.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { ClientAdminDeps } from './oauthClients.ts';
import { ProjectService } from './projects.ts';
import { UserService } from './users.ts';

/**
 * Every service of the process, built once by the composition root (src/container.ts) and used by
 * /v1, the dashboard and the admin CLI alike. Projects, deployments, configurations, API keys, users
 * and accounts are classes; the others are modules of functions (oauthClients.ts, events.ts) that take
 * their dependencies as the first argument: their entries below are those dependencies, ready to pass.
 */
export interface Services {
  projects: ProjectService;
  deployments: DeploymentService;
  configurations: ConfigurationService;
  apiKeys: ApiKeyService;
  users: UserService;
  accounts: AccountService;
  oauthClients: ClientAdminDeps;
  events: { events: EventRepository };
  /** The process's one secret box (AES-256-GCM data keys from `keys/`). */
  secretBox: SecretBox;
}

export interface ServiceDeps {
  repos: Repositories;
  secretBox: SecretBox;
  changes: Changes;
}

export function createServices({ repos, secretBox, changes }: ServiceDeps): Services {
  const shared = { ...repos, secretBox, changes };
  const projects = new ProjectService(repos);
  const deployments = new DeploymentService(repos, projects);
  const configurations = new ConfigurationService({ ...shared, projects });
  const apiKeys = new ApiKeyService({ ...shared, projects });
  // PRODUCT §5: deleting a project removes its configurations and revokes its API keys.
  projects.onDelete(async (project, principal) => {
    await repos.configurations.deleteAllForProject(project.account_id, project._id);
    await apiKeys.revokeAllForProject(principal, project);
  });
  const users = new UserService({ ...repos, changes });
  const accounts = new AccountService(repos, { projects, users, oauthClients: shared });
  return { projects, deployments, configurations, apiKeys, users, accounts, oauthClients: shared, events: shared, secretBox };
}
