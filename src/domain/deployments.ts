/**
 * A deployment's lifecycle (docs/product.md §5): its statuses and the moves a deployer may report.
 * `superseded` is only ever set by the service itself, when a newer deployment to the same environment
 * succeeds.
 */
export const DEPLOYMENT_STATUSES = ['queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

const DEPLOYMENT_TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  queued: ['building', 'failed', 'canceled'],
  building: ['deploying', 'failed', 'canceled'],
  deploying: ['succeeded', 'failed', 'canceled'],
  succeeded: [],
  failed: [],
  canceled: [],
  superseded: [],
};

/** The statuses that end a deployment (it gets its `finished_at`). */
export const FINISHED_STATUSES: ReadonlySet<DeploymentStatus> = new Set(['succeeded', 'failed', 'canceled']);

export const canMoveDeployment = (from: DeploymentStatus, to: DeploymentStatus) => DEPLOYMENT_TRANSITIONS[from].includes(to);

/** The moves open from `from`, in status order. */
export const deploymentMovesFrom = (from: DeploymentStatus): readonly DeploymentStatus[] => DEPLOYMENT_TRANSITIONS[from];

export const isDeploymentStatus = (value: string): value is DeploymentStatus => (DEPLOYMENT_STATUSES as readonly string[]).includes(value);
