import { z } from 'zod';
import { pageOf } from '../../../http/openapi.ts';
import { PageQuery } from '../../../http/pagination.ts';
import { DEPLOY_TARGETS, PROJECT_STATUSES } from '../../../repositories/projects.ts';

const ID_BODY = '[0-9a-hjkmnp-tv-z]{26}';
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

export const ProjectId = z
  .string()
  .regex(new RegExp(`^proj_${ID_BODY}$`))
  .meta({ description: 'Project id.', example: 'proj_01jd8x3k9q7m2v4t6r8w0y1z3b' });

export const ProjectParams = z.object({ project_id: ProjectId });
export type ProjectParams = z.output<typeof ProjectParams>;

/** 1–100 characters (Unicode code points) after trimming, no control characters. */
export const ProjectName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((s) => [...s].length <= 100, 'must be at most 100 characters')
  .refine((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters')
  .meta({ description: 'Unique in the account, ignoring case. 1–100 characters after trimming.', example: 'checkout-service', maxLength: 100 });

export const DeployTarget = z.enum(DEPLOY_TARGETS).meta({ description: 'The platform the project deploys to.' });
export const ProjectStatus = z.enum(PROJECT_STATUSES).meta({
  description: '`active` ⇄ `paused`; `active`/`paused` → `archived`; `archived` → `active`.',
});

export const CreateProjectBody = z
  .object({
    name: ProjectName,
    deploy_target: DeployTarget.nullable().optional(),
  })
  .strict()
  .meta({ id: 'CreateProject' });
export type CreateProjectBody = z.output<typeof CreateProjectBody>;

export const UpdateProjectBody = z
  .object({
    name: ProjectName.optional(),
    deploy_target: DeployTarget.nullable().optional(),
    status: ProjectStatus.optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'send at least one of name, deploy_target, status')
  .meta({ id: 'UpdateProject', description: 'Archived projects accept only `{"status": "active"}`.' });
export type UpdateProjectBody = z.output<typeof UpdateProjectBody>;

export const ListProjectsQuery = PageQuery;
export type ListProjectsQuery = z.output<typeof ListProjectsQuery>;

const Timestamp = z.string().meta({ description: 'ISO 8601 UTC with milliseconds.', example: '2026-01-15T09:30:00.000Z', format: 'date-time' });

export const Project = z
  .object({
    id: ProjectId,
    name: z.string(),
    status: ProjectStatus,
    deploy_target: DeployTarget.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Project' });
export type Project = z.output<typeof Project>;

export const ProjectList = pageOf(Project, 'ProjectList');
export { Timestamp };
