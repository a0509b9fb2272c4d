import type { Config } from '../config/index.ts';
import type { Changes } from '../lib/changes.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import type { Repositories } from '../repositories/index.ts';
import { revokeAllForProject, type ApiKeyDeps } from './apiKeys.ts';
import type { ConfigurationDeps } from './configurations.ts';
import { DeploymentService } from './deployments.ts';
import { actorOf, EventService } from './events.ts';
import { OAuthClientService } from './oauthClients.ts';
import { ProjectService } from './projects.ts';
import type { UserAccessDeps, UserAdminDeps } from './users.ts';
import { WebhookService } from './webhooks.ts';

/**
 * Every service of the process, built once by the composition root (src/container.ts) and used by
 * /v1, the dashboard and the admin CLI alike. Projects, deployments, OAuth clients, webhooks and events
 * are classes; the others are modules of functions (configurations.ts, apiKeys.ts, users.ts) that take
 * their dependencies as the first argument: their entries below are those dependencies, ready to pass.
 */
export interface Services {
  projects: ProjectService;
  deployments: DeploymentService;
  configurations: ConfigurationDeps;
  apiKeys: ApiKeyDeps;
  users: UserAdminDeps & UserAccessDeps;
  oauthClients: OAuthClientService;
  webhooks: WebhookService;
  events: EventService;
  /** The process's one secret box (AES-256-GCM data keys from `keys/`). */
  secretBox: SecretBox;
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
  const projects = new ProjectService(repos);
  const deployments = new DeploymentService(repos, projects);
  // PRODUCT §5: deleting a project removes its configurations and revokes its API keys.
  projects.onDelete(async (project, principal) => {
    await repos.configurations.deleteAllForProject(project.account_id, project._id);
    await revokeAllForProject(shared, { accountId: project.account_id, actor: actorOf(principal) }, project._id);
  });
  return {
    projects,
    deployments,
    configurations: shared,
    apiKeys: shared,
    users: shared,
    oauthClients: new OAuthClientService({ repos, changes }),
    webhooks: new WebhookService({ repos, secretBox, config }),
    events: new EventService(repos),
    secretBox,
  };
}
