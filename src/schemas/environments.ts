import { z } from 'zod';
import { actorRef } from './actor.ts';
import { ROLES } from '../domain/principal.ts';
import { DeploymentId, Environment, freezeOverrideFields } from './deployments.ts';
import { pageOf, PageQuery } from './page.ts';
import { ProjectId, Timestamp } from './projects.ts';
import { atLeastOneField, documentedPattern, HTTP_URL_PATTERN, trimmedText } from './rules.ts';
import { USER_ID } from './users.ts';

/** docs/product.md §9. */
export const MAX_REQUIRED_APPROVALS = 6;
export const MAX_WAIT_TIMER_SECONDS = 2_592_000;

export const EnvironmentId = z
  .string()
  .regex(/^env_[0-9a-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'Environment id.', example: 'env_01jd8x7p2c4e6g8j0k2m4n6q8s' });

export const EnvironmentParams = z.object({ project_id: ProjectId, name: Environment });
export type EnvironmentParams = z.output<typeof EnvironmentParams>;

// `[` escaped inside the class: the same in JavaScript, and a nested class in other engines (Rust's regex, which pydantic uses) otherwise.
// eslint-disable-next-line no-control-regex, no-useless-escape -- control characters are exactly what is refused; the escape is for other engines
const BRANCH_GLOB = /^[^\x00-\x20\x7f~^:?\[\\]{1,255}$/u;

/** A user id or a role, as one string (one pattern rather than a union, so every SDK types it as a string). */
const REVIEWER = new RegExp(`^(?:${USER_ID.source.slice(1, -1)}|${ROLES.join('|')})$`);
const Reviewer = z.string().regex(REVIEWER, 'must be a user id (usr_…) or a role').meta({ ...documentedPattern(REVIEWER), description: 'A user id (`usr_…`) or a role (`viewer`, `developer`, `admin`, `owner`).', example: 'admin' });

export const ProtectionInput = z
  .object({
    required_approvals: z.number().int().min(0).max(MAX_REQUIRED_APPROVALS).optional().meta({ description: 'Approvals a deployment needs before it is queued, 0–6.', example: 2 }),
    reviewers: z
      .array(Reviewer)
      .max(50)
      .optional()
      .meta({ description: 'Who may review: user ids and/or roles. Empty: any admin or owner of the account.', example: ['usr_01jd8x0a2b4c6d8e0f2g4h6j8k', 'admin'] }),
    prevent_self_review: z.boolean().optional().meta({ description: 'The deployment’s creator cannot approve it.', example: true }),
    wait_timer_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_WAIT_TIMER_SECONDS)
      .optional()
      .meta({ description: 'Seconds to wait after the last needed approval (or after creation, without approvals), 0–2,592,000.', example: 600 }),
    branch_patterns: z
      .array(z.string().regex(BRANCH_GLOB, 'must be 1–255 characters a branch name may hold, plus * and **').meta(documentedPattern(BRANCH_GLOB)))
      .max(50)
      .nullable()
      .optional()
      .meta({ description: 'Globs of the branches admitted: `*` within a path segment, `**` across segments. `null`: any branch.', example: ['main', 'release/*'] }),
  })
  .strict()
  .meta({ id: 'ProtectionInput' });

const Instant = z.iso.datetime({ offset: true, abort: true });

export const FreezeWindowInput = z
  .object({
    starts_at: Instant.meta({ description: 'Start (ISO 8601).', example: '2099-12-20T00:00:00Z' }),
    ends_at: Instant.meta({ description: 'End (ISO 8601), after `starts_at`.', example: '2100-01-02T00:00:00Z' }),
    reason: trimmedText(500, { controlCharacters: false }).meta({ description: 'Why, 1–500 characters.', example: 'Holiday freeze' }),
  })
  .strict()
  .refine((w) => Date.parse(w.ends_at) > Date.parse(w.starts_at), { message: 'ends_at must be after starts_at', path: ['ends_at'] });

const EnvironmentUrl = z
  .string()
  .max(2048)
  .regex(HTTP_URL_PATTERN, 'must be an absolute http(s) URL')
  .meta(documentedPattern(HTTP_URL_PATTERN))
  .meta({ description: 'Where the environment is reached, an absolute http(s) URL.', example: 'https://checkout.example.com' });

const environmentFields = {
  url: EnvironmentUrl.nullable().optional(),
  protection: ProtectionInput.optional(),
  serial: z.boolean().optional().meta({ description: 'At most one deployment in `building` or `deploying` at a time.', example: true }),
  cancel_superseded: z.boolean().optional().meta({ description: 'A new deployment cancels the older `waiting` and `queued` ones.', example: false }),
  freeze_windows: z.array(FreezeWindowInput).max(50).optional().meta({ description: 'Times no deployment may be created (except an admin override).' }),
};

export const CreateEnvironmentBody = z
  .object({ name: Environment.meta({ example: 'staging' }), ...environmentFields })
  .strict()
  .meta({ id: 'CreateEnvironment' });
export type CreateEnvironmentBody = z.output<typeof CreateEnvironmentBody>;

export const UpdateEnvironmentBody = atLeastOneField(z.object(environmentFields).strict()).meta({ id: 'UpdateEnvironment' });
export type UpdateEnvironmentBody = z.output<typeof UpdateEnvironmentBody>;

export const LockEnvironmentBody = z
  .object({ reason: trimmedText(500, { controlCharacters: false }).meta({ description: 'Why, 1–500 characters.', example: 'Incident 42 in progress' }) })
  .strict()
  .meta({ id: 'LockEnvironment' });
export type LockEnvironmentBody = z.output<typeof LockEnvironmentBody>;

export const RollbackBody = z
  .object({ deployment_id: DeploymentId.optional().meta({ description: 'The deployment to redeploy; default: the one that succeeded before the current one.' }), ...freezeOverrideFields })
  .strict()
  .meta({ id: 'Rollback', example: {} });
export type RollbackBody = z.output<typeof RollbackBody>;

export const ListEnvironmentsQuery = PageQuery;
export type ListEnvironmentsQuery = z.output<typeof ListEnvironmentsQuery>;
/** Paging alone (the reviews of a deployment). */
export const PageOnlyQuery = PageQuery;
export type PageOnlyQuery = z.output<typeof PageOnlyQuery>;

const Actor = actorRef();

export const EnvironmentObject = z
  .object({
    // The name first: it is what addresses an environment (…/environments/:name).
    name: z.string().meta({ example: 'staging' }),
    id: EnvironmentId,
    project_id: ProjectId,
    url: z.string().nullable(),
    protection: z.object({
      required_approvals: z.number().int(),
      reviewers: z.array(z.string()),
      prevent_self_review: z.boolean(),
      wait_timer_seconds: z.number().int(),
      branch_patterns: z.array(z.string()).nullable(),
    }),
    serial: z.boolean(),
    cancel_superseded: z.boolean(),
    lock: z.object({ reason: z.string(), locked_by: Actor, locked_at: Timestamp }).nullable(),
    freeze_windows: z.array(z.object({ starts_at: Timestamp, ends_at: Timestamp, reason: z.string() })),
    current_deployment_id: DeploymentId.nullable().meta({ description: 'The deployment that succeeded last and is live.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Environment' });
export type EnvironmentObject = z.output<typeof EnvironmentObject>;

export const EnvironmentList = pageOf(EnvironmentObject, 'EnvironmentList');

// Reviews (docs/product.md §9).

export const ReviewBody = z
  .object({
    decision: z.enum(['approve', 'reject']).meta({ description: 'One reject ends the deployment as `rejected`.', example: 'approve' }),
    comment: trimmedText(1000, { controlCharacters: true }).nullable().optional().meta({ description: 'At most 1,000 characters.', example: 'Checked the migration.' }),
  })
  .strict()
  .meta({ id: 'CreateReview' });
export type ReviewBody = z.output<typeof ReviewBody>;

export const Review = z
  .object({
    id: z.string().regex(/^rev_[0-9a-hjkmnp-tv-z]{26}$/).meta({ description: 'Review id.', example: 'rev_01jd8x9q3s5v7w9y1a3c5e7g9j' }),
    deployment_id: DeploymentId,
    reviewer: Actor.meta({ example: { type: 'user', id: 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k' } }),
    decision: z.enum(['approve', 'reject']),
    comment: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Review' });
export type Review = z.output<typeof Review>;
export const ReviewList = pageOf(Review, 'ReviewList');

export const DeploymentConfiguration = z
  .object({
    deployment_id: DeploymentId,
    environment: z.string(),
    variables: z.array(z.object({ key: z.string(), value: z.string(), secret: z.boolean() })).meta({ description: 'Every variable of the environment, secret values in clear.' }),
  })
  .meta({ id: 'DeploymentConfiguration' });
export type DeploymentConfiguration = z.output<typeof DeploymentConfiguration>;
