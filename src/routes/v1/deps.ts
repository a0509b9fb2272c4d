import type { Config } from '../../config/index.ts';
import type { ApiMiddleware } from '../../http/apiContext.ts';
import type { IdempotentFactory } from '../../http/idempotency.ts';
import type { Repositories } from '../../repositories/index.ts';
import type { ApiKeyDeps } from '../../services/apiKeys.ts';
import type { ConfigurationDeps } from '../../services/configurations.ts';
import type { DeploymentService } from '../../services/deployments.ts';
import type { EventRepository } from '../../repositories/events.ts';
import type { ClientAdminDeps } from '../../services/oauthClients.ts';
import type { ProjectService } from '../../services/projects.ts';
import type { SecretBox } from '../../services/secretBox.ts';
import type { UserAccessDeps, UserAdminDeps } from '../../services/users.ts';

/** What every /v1 resource module receives to declare its routes. */
export interface V1Deps {
  config: Config;
  repos: Repositories;
  /** First step of every route: credential → principal, then the per-credential rate limit. */
  authenticate: ApiMiddleware;
  /**
   * `Idempotency-Key` support for POST routes; place it after `validate`. A route that creates a
   * resource passes `newResourceId` and hands `ctx.state.resourceId` to its service.
   */
  idempotent: IdempotentFactory;
  services: V1Services;
}

/**
 * The services behind /v1. Projects and deployments are classes; the others are modules of functions
 * (src/services/configurations.ts, apiKeys.ts, users.ts, oauthClients.ts, events.ts) that take their
 * dependencies as the first argument: the entries below are those dependencies, ready to pass.
 */
export interface V1Services {
  projects: ProjectService;
  deployments: DeploymentService;
  configurations: ConfigurationDeps;
  apiKeys: ApiKeyDeps;
  users: UserAdminDeps & UserAccessDeps;
  oauthClients: ClientAdminDeps;
  events: { events: EventRepository };
  /** The process's one secret box (AES-256-GCM data keys from `keys/`). */
  secretBox: SecretBox;
}
