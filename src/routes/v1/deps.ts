import type { Config } from '../../config/index.ts';
import type { ApiMiddleware } from '../../http/apiContext.ts';
import type { Repositories } from '../../repositories/index.ts';
import type { DeploymentService } from '../../services/deployments.ts';
import type { ProjectService } from '../../services/projects.ts';

/** What every /v1 resource module receives to declare its routes. */
export interface V1Deps {
  config: Config;
  repos: Repositories;
  /** First step of every route: credential → principal, then the per-credential rate limit. */
  authenticate: ApiMiddleware;
  /** `Idempotency-Key` support for POST routes; place it after `validate`. */
  idempotent: ApiMiddleware;
  services: V1Services;
}

export interface V1Services {
  projects: ProjectService;
  deployments: DeploymentService;
}
