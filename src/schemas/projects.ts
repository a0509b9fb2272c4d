import { z } from 'zod';
import { pageOf, PageQuery } from './page.ts';
import { atLeastOneField, trimmedText } from './rules.ts';
import { DEPLOY_TARGETS, PROJECT_STATUSES } from '../domain/projects.ts';

const ID_BODY = '[0-9a-hjkmnp-tv-z]{26}';

export const ProjectId = z
  .string()
  .regex(new RegExp(`^proj_${ID_BODY}$`))
  .meta({ description: 'Project id.', example: 'proj_01jd8x3k9q7m2v4t6r8w0y1z3b' });

export const ProjectParams = z.object({ project_id: ProjectId });
export type ProjectParams = z.output<typeof ProjectParams>;

/** 1–100 characters (Unicode code points) after trimming, no control characters. */
export const ProjectName = trimmedText(100, { controlCharacters: false }).meta({
  description: 'Unique in the account, ignoring case. 1–100 characters after trimming, no control characters.',
  example: 'checkout-service',
});

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

export const UpdateProjectBody = atLeastOneField(
  z
    .object({
      name: ProjectName.optional(),
      deploy_target: DeployTarget.nullable().optional(),
      status: ProjectStatus.optional(),
    })
    .strict(),
).meta({ id: 'UpdateProject', description: 'Archived projects accept only `{"status": "active"}`.' });
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
