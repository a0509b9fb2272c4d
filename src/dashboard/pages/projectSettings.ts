import type { Context } from 'koa';
import type { PageRequest } from '../../domain/page.ts';
import type { Principal } from '../../domain/principal.ts';
import type { Services } from '../../services/index.ts';
import { dash } from '../context.ts';
import { listPage, queryValue, str, type FormState } from '../forms.ts';
import type { ProjectScoped } from '../views/projectSettings.ts';

/**
 * What a project-scoped settings page lists: the account's projects (newest 100) and a page of the
 * chosen project's things. The project is `?project=`, else the one a refused form named, else the
 * first; one not among the 100 is read (and refused if the viewer may not see it).
 */
export async function projectScoped<T>(
  ctx: Context,
  projects: Services['projects'],
  form: FormState | undefined,
  load: (principal: Principal, projectId: string, page: PageRequest) => Promise<{ items: T[]; total: number }>,
): Promise<ProjectScoped<T>> {
  const { principal } = dash(ctx);
  const all = (await projects.list(principal, { page: 1, per_page: 100 })).items;
  const wanted = queryValue(ctx.query.project) || (form ? str(form.values, 'project_id') : '');
  const selected = all.find((p) => p._id === wanted) ?? (wanted ? await projects.get(principal, wanted) : all[0]);
  const list = await listPage(ctx, async (page) => (selected ? await load(principal, selected._id, page) : { items: [], total: 0 }));
  return { projects: all, selected, list };
}
