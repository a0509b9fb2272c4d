/**
 * A deployment's lifecycle (docs/product.md §5, §9): its statuses and the moves a deployer may report.
 * `superseded` is only ever set by the service itself, when a newer deployment to the same environment
 * succeeds; `waiting` is left for `queued` by the service (approvals met, wait timer run out) or for
 * `rejected` by a reviewer, and only `canceled` is a move a deployer reports from it.
 */
export const DEPLOYMENT_STATUSES = ['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

const DEPLOYMENT_TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  waiting: ['canceled'],
  queued: ['building', 'failed', 'canceled'],
  building: ['deploying', 'failed', 'canceled'],
  deploying: ['succeeded', 'failed', 'canceled'],
  succeeded: [],
  failed: [],
  canceled: [],
  superseded: [],
  rejected: [],
};

/** The statuses that end a deployment (it gets its `finished_at`). */
export const FINISHED_STATUSES: ReadonlySet<DeploymentStatus> = new Set(['succeeded', 'failed', 'canceled', 'rejected']);

/** docs/product.md §9: where a serial environment holds at most one deployment. */
export const RUNNING_STATUSES: ReadonlySet<DeploymentStatus> = new Set(['building', 'deploying']);

/** docs/product.md §9: while its configuration may be released to it. */
export const ACTIVE_STATUSES: ReadonlySet<DeploymentStatus> = new Set(['queued', 'building', 'deploying']);

/** How a deployment came to be (docs/product.md §9). */
export const DEPLOYMENT_KINDS = ['deploy', 'redeploy', 'rollback', 'promote'] as const;
export type DeploymentKind = (typeof DEPLOYMENT_KINDS)[number];

export const canMoveDeployment = (from: DeploymentStatus, to: DeploymentStatus) => DEPLOYMENT_TRANSITIONS[from].includes(to);

/** The moves open from `from`, in status order. */
export const deploymentMovesFrom = (from: DeploymentStatus): readonly DeploymentStatus[] => DEPLOYMENT_TRANSITIONS[from];

export const isDeploymentStatus = (value: string): value is DeploymentStatus => (DEPLOYMENT_STATUSES as readonly string[]).includes(value);
