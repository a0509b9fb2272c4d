import { authorizeFor, requireScope } from '../../../http/requireScope.ts';
import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { sendPage } from '../../../http/pagination.ts';
import { validate } from '../../../http/validate.ts';
import { created, sendCreated } from '../../../http/created.ts';
import { newId } from '../../../lib/ids.ts';
import { presentProject } from '../../../presenters/projects.ts';
import type { V1Deps } from '../deps.ts';
import { CreateProjectBody, ListProjectsQuery, Project, ProjectList, ProjectParams, UpdateProjectBody } from '../../../schemas/projects.ts';

const tags = ['Projects'];

export function registerProjectRoutes(api: ApiRouter, { authenticate, idempotent, services, config }: V1Deps): void {
  const { projects } = services;

  api.get(
    '/projects',
    { operationId: 'listProjects', summary: 'List projects', description: 'Newest first. An API key sees only its own project.', tags, success: { status: 200, description: 'A page of projects.', schema: ProjectList } },
    authenticate,
    requireScope('read'),
    validate({ query: ListProjectsQuery }),
    async (ctx: ApiContext<{ query: ListProjectsQuery }>) => {
      const page = { page: ctx.input.query.page, per_page: ctx.input.query.per_page };
      const { items, total } = await projects.list(ctx.state.principal, page);
      sendPage(ctx, config.publicUrl, items.map(presentProject), total, page);
    },
  );

  api.post(
    '/projects',
    {
      operationId: 'createProject',
      summary: 'Create a project',
      description: 'Starts `active`. Names are unique in the account ignoring case. An API key belongs to one project and cannot create projects (`forbidden`).',
      tags,
      success: created('The new project.', Project, 'URL of the new project.'),
      errors: ['conflict', 'forbidden', 'quota_exceeded'],
    },
    authenticate,
    authorizeFor('create', 'project'),
    requireScope('write'),
    validate({ body: CreateProjectBody }),
    idempotent({ newResourceId: () => newId('project') }),
    async (ctx: ApiContext<{ body: CreateProjectBody }>) => {
      const project = await projects.create(ctx.state.principal, ctx.input.body, ctx.state.resourceId);
      sendCreated(ctx, config.publicUrl, `/v1/projects/${project._id}`, presentProject(project));
    },
  );

  api.get(
    '/projects/:project_id',
    { operationId: 'getProject', summary: 'Get a project', tags, success: { status: 200, description: 'The project.', schema: Project } },
    authenticate,
    requireScope('read'),
    validate({ params: ProjectParams }),
    async (ctx: ApiContext<{ params: ProjectParams }>) => {
      ctx.body = presentProject(await projects.get(ctx.state.principal, ctx.input.params.project_id));
    },
  );

  api.patch(
    '/projects/:project_id',
    {
      operationId: 'updateProject',
      summary: 'Update a project',
      description:
        'Change `name`, `deploy_target` or `status`. Status moves: `active` ⇄ `paused`, `active`/`paused` → `archived`, `archived` → `active`; any other move is `invalid_transition`. An archived project accepts only `{"status": "active"}` (else `project_not_active`).',
      tags,
      success: { status: 200, description: 'The updated project.', schema: Project },
      errors: ['conflict', 'invalid_transition', 'project_not_active'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: ProjectParams, body: UpdateProjectBody }),
    async (ctx: ApiContext<{ params: ProjectParams; body: UpdateProjectBody }>) => {
      ctx.body = presentProject(await projects.update(ctx.state.principal, ctx.input.params.project_id, ctx.input.body));
    },
  );

  api.delete(
    '/projects/:project_id',
    {
      operationId: 'deleteProject',
      summary: 'Delete a project',
      description: 'Removes the project with its deployments and configurations, and revokes its API keys.',
      tags,
      success: { status: 204, description: 'Deleted.' },
    },
    authenticate,
    requireScope('admin'),
    validate({ params: ProjectParams }),
    async (ctx: ApiContext<{ params: ProjectParams }>) => {
      await projects.delete(ctx.state.principal, ctx.input.params.project_id);
      ctx.status = 204;
    },
  );
}
