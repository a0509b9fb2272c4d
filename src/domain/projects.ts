/**
 * A project's lifecycle (docs/product.md §5): the platforms it may deploy to, its statuses and the moves
 * between them. Repositories store these values, services enforce the moves, pages offer them.
 */
export const DEPLOY_TARGETS = ['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] as const;
export type DeployTarget = (typeof DEPLOY_TARGETS)[number];

export const PROJECT_STATUSES = ['active', 'paused', 'archived'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** The moves a project's status may make: active ⇄ paused, either → archived, archived → active. */
const PROJECT_TRANSITIONS: Record<ProjectStatus, readonly ProjectStatus[]> = {
  active: ['paused', 'archived'],
  paused: ['active', 'archived'],
  archived: ['active'],
};

export const canMoveProject = (from: ProjectStatus, to: ProjectStatus) => PROJECT_TRANSITIONS[from].includes(to);

/** The moves open from `from`, in the order a page offers them. */
export const projectMovesFrom = (from: ProjectStatus): readonly ProjectStatus[] => PROJECT_TRANSITIONS[from];

/** Only an active project takes new deployments (a paused or archived one answers 409 `project_not_active`). */
export const acceptsDeployments = (status: ProjectStatus) => status === 'active';

/** An archived project refuses every change but being unarchived (409 `project_not_active`). */
export const acceptsChanges = (status: ProjectStatus) => status !== 'archived';
