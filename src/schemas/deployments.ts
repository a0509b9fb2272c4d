import { z } from 'zod';
import { actorRef } from './actor.ts';
import { branchNameProblem } from '../lib/gitRef.ts';
import { BRANCH_PATTERN, documentedPattern, HTTP_URL_PATTERN, trimmedText } from './rules.ts';
import { pageOf, PageQuery } from './page.ts';
import { DEPLOYMENT_KINDS, DEPLOYMENT_STATUSES } from '../domain/deployments.ts';
import { ProjectId, Timestamp } from './projects.ts';

export const DeploymentId = z
  .string()
  .regex(/^dep_[0-9a-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'Deployment id.', example: 'dep_01jd8x7p2c4e6g8j0k2m4n6q8s' });

export const DeploymentParams = z.object({ project_id: ProjectId, deployment_id: DeploymentId });
export type DeploymentParams = z.output<typeof DeploymentParams>;

export const Environment = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1–63 lower-case letters, digits or "-", starting with a letter or digit')
  .meta({ description: 'Target environment.', example: 'production' });

export const Branch = z
  .string()
  .regex(BRANCH_PATTERN, { error: (issue) => branchNameProblem(String(issue.input)) ?? 'must be a valid git branch name' })
  .meta(documentedPattern(BRANCH_PATTERN))
  .meta({ description: 'Source branch: a valid git ref name (`git check-ref-format --branch`), at most 255 characters.', example: 'main', maxLength: 255 });

export const CommitSha = z
  .string()
  .regex(/^[0-9a-fA-F]{7,40}$/, 'must be 7–40 hexadecimal characters')
  .transform((s) => s.toLowerCase())
  .meta({ description: 'Commit to deploy, 7–40 hex characters.', example: '9fceb02d0ae598e95dc970b74767f19372d61af8' });

export const DeploymentStatus = z.enum(DEPLOYMENT_STATUSES).meta({
  description:
    '`queued` → `building` → `deploying` → `succeeded`; `queued`/`building`/`deploying` → `failed` or `canceled`; `succeeded` → `superseded` when a newer deployment to the same environment succeeds. With approvals or a wait timer a deployment starts `waiting`: the service queues it when they are met, a reviewer may end it as `rejected`, and it may be `canceled`.',
});

/** What a deployment request may add to pass a freeze window (an admin's, with its reason). */
export const freezeOverrideFields = {
  override_freeze: z.boolean().optional().meta({ description: 'Deploy inside a freeze window (admin scope); inside one, an override without `reason` is refused (`environment_frozen`).', example: true }),
  reason: trimmedText(500, { controlCharacters: false }).optional().meta({ description: 'Why the freeze is overridden (recorded in the event).', example: 'Hotfix for incident 42' }),
};

export const CreateDeploymentBody = z
  .object({
    environment: Environment,
    branch: Branch,
    commit_sha: CommitSha.nullable().optional(),
    ...freezeOverrideFields,
  })
  .strict()
  .meta({ id: 'CreateDeployment' });

export const RedeployBody = z
  .object({
    environment: Environment.optional().meta({ description: 'Where to deploy the same branch and commit: another environment makes it a `promote`. Default: the deployment’s own.' }),
    ...freezeOverrideFields,
  })
  .strict()
  .meta({ id: 'Redeploy' });
export type RedeployBody = z.output<typeof RedeployBody>;
export type CreateDeploymentBody = z.output<typeof CreateDeploymentBody>;

const DeploymentUrl = z
  .string()
  .max(2048)
  .regex(HTTP_URL_PATTERN, 'must be an absolute http(s) URL')
  .meta(documentedPattern(HTTP_URL_PATTERN))
  .meta({
    description: 'Where the deployment can be reached: an absolute http(s) URL with a host name or IPv4 address, no user name or password, non-ASCII percent-encoded; at most 2,048 characters.',
    example: 'https://checkout-7f3a.example.app',
  });

export const UpdateDeploymentBody = z
  .object({
    status: DeploymentStatus.meta({ description: DeploymentStatus.description, example: 'building' }),
    status_message: z
      .string()
      .max(1000)
      .nullable()
      .optional()
      .meta({ description: 'Free text from the deployer, at most 1,000 characters.', example: 'Building image for 9fceb02 on GitHub Actions' }),
    url: DeploymentUrl.nullable().optional(),
  })
  .strict()
  .meta({ id: 'UpdateDeployment' });
export type UpdateDeploymentBody = z.output<typeof UpdateDeploymentBody>;

export const ListDeploymentsQuery = PageQuery.extend({
  environment: Environment.optional(),
  status: DeploymentStatus.optional(),
  branch: z.string().max(255).optional().meta({ description: 'Exact branch name.' }),
});
export type ListDeploymentsQuery = z.output<typeof ListDeploymentsQuery>;

export const Deployment = z
  .object({
    id: DeploymentId,
    project_id: ProjectId,
    environment: z.string(),
    branch: z.string(),
    commit_sha: z.string().nullable(),
    status: DeploymentStatus,
    status_message: z.string().nullable(),
    url: z.string().nullable(),
    created_by: actorRef(),
    kind: z.enum(DEPLOYMENT_KINDS).meta({ description: '`deploy`; `redeploy` (the same branch and commit again), `promote` (to another environment), `rollback`.' }),
    source_deployment_id: DeploymentId.nullable().meta({ description: 'The deployment a redeploy, promote or rollback repeats.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'Deployment' });
export type Deployment = z.output<typeof Deployment>;

export const DeploymentList = pageOf(Deployment, 'DeploymentList');
