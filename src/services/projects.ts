import type { Principal } from '../domain/principal.ts';
import { conflict, invalidTransition, notFound, projectNotActive } from '../errors.ts';
import { authorize, confinement } from '../domain/policy.ts';
import type { PageRequest } from '../domain/page.ts';
import { newId } from '../lib/ids.ts';
import type { Repositories } from '../repositories/index.ts';
import {
  DuplicateProjectName,
  foldName,
  type ProjectDoc,
} from '../repositories/projects.ts';
import { acceptsChanges, canMoveProject } from '../domain/projects.ts';
import { createOnce } from './createOnce.ts';
import type { QuotaService } from './quotas.ts';
import type { EventLog } from './eventLog.ts';
import type { CreateProjectBody, UpdateProjectBody } from '../schemas/projects.ts';
import { Service } from './service.ts';
export type { ProjectDoc } from '../repositories/projects.ts';

/** What else goes when a project is deleted (deployments, configurations, API keys...). */
export type ProjectDeletionHook = (project: ProjectDoc, principal: Principal) => Promise<void>;

const MAX_ATTEMPTS = 3;

/** The events of a project itself: the project is their project. */
const inProject = (project: ProjectDoc) => ({ account_id: project.account_id, project_id: project._id });

export interface ProjectServiceDeps extends Pick<Repositories, 'projects' | 'deployments'> {
  eventLog: EventLog;
  quotas: QuotaService;
}

export class ProjectService extends Service<ProjectServiceDeps> {
  readonly #hooks: ProjectDeletionHook[] = [];

  constructor(deps: ProjectServiceDeps) {
    super(deps);
    this.onDelete(async (project) => {
      await deps.deployments.deleteByProject(project.account_id, project._id);
    });
  }

  /**
   * Registers cleanup that runs after a project is deleted. Configurations and API keys plug in here
   * (delete the project's configurations, revoke its keys). Hooks run in registration order, after the
   * project itself is gone, so a crash part-way leaves only unreachable children, never a half-deleted
   * project that is still visible.
   */
  onDelete(hook: ProjectDeletionHook): void {
    this.#hooks.push(hook);
  }

  async list(principal: Principal, page: PageRequest) {
    authorize(principal, 'list', 'project');
    return await this.deps.projects.page(confinement(principal), page);
  }

  /** The project, or 404 whether it does not exist or belongs to someone else. */
  async get(principal: Principal, id: string): Promise<ProjectDoc> {
    const project = await this.deps.projects.find(confinement(principal), id);
    if (!project) throw notFound('project');
    authorize(principal, 'read', 'project', project);
    return project;
  }

  /**
   * The project, for a change to something inside it (configurations, API keys): 404 as `get`, and
   * docs/product.md §5's rule that an archived project refuses every write → 409 project_not_active.
   * `madeAlready` says whether the request is a run again of one whose resource exists (see create).
   */
  async getWritable(principal: Principal, id: string, madeAlready?: () => Promise<boolean>): Promise<ProjectDoc> {
    const project = await this.get(principal, id);
    // A request run again (Idempotency-Key) whose resource an earlier run made is answered with it,
    // whatever the project's status now: never a refusal of the client's own write.
    if (!acceptsChanges(project.status) && !(await madeAlready?.())) throw projectNotActive('The project is archived; unarchive it with {"status": "active"} before changing it.');
    return project;
  }

  /**
   * `id` is the id reserved for this request (Idempotency-Key): a project that already has it is this
   * request's own, made by an earlier run, and is returned as it is (see createOnce). Counts against the
   * account's project quota (403 `quota_exceeded`).
   */
  async create(principal: Principal, input: CreateProjectBody, id?: string): Promise<ProjectDoc> {
    authorize(principal, 'create', 'project');
    const projectId = id ?? newId('project');
    const { doc } = await createOnce(
      id,
      (existing) => this.deps.projects.find(confinement(principal), existing),
      () => this.deps.quotas.withSlot(principal, 'projects', projectId, () => this.#insert(principal, input, projectId)),
    );
    return doc;
  }

  async #insert(principal: Principal, input: CreateProjectBody, id: string): Promise<ProjectDoc> {
    const now = new Date();
    const doc: ProjectDoc = {
      _id: id,
      account_id: principal.accountId,
      name: input.name,
      name_lower: foldName(input.name),
      status: 'active',
      deploy_target: input.deploy_target ?? null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.deps.projects.insert(doc);
    } catch (err) {
      if (err instanceof DuplicateProjectName) throw conflict('A project with this name already exists in the account.');
      throw err;
    }
    await this.deps.eventLog.record('project.created', principal, inProject(doc), { name: doc.name, deploy_target: doc.deploy_target }, now);
    return doc;
  }

  /**
   * Renames, retargets and moves status (docs/product.md §5). An archived project accepts only
   * `{status: "active"}`; a move the state machine does not have → 409 invalid_transition. Setting the
   * status it already has changes nothing and is not an error (PATCH is idempotent).
   */
  async update(principal: Principal, id: string, input: UpdateProjectBody): Promise<ProjectDoc> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.get(principal, id);
      authorize(principal, 'update', 'project', current);
      const target = input.status ?? current.status;
      const onlyStatus = input.name === undefined && input.deploy_target === undefined;
      if (onlyStatus && target === current.status) return current;
      if (target !== current.status && !canMoveProject(current.status, target))
        throw invalidTransition(`A project cannot move from ${current.status} to ${target}.`);
      if (!acceptsChanges(current.status) && (target !== 'active' || input.name !== undefined || input.deploy_target !== undefined))
        throw projectNotActive('The project is archived; unarchive it with {"status": "active"} before changing it.');

      const set: Partial<ProjectDoc> = { updated_at: new Date() };
      if (input.name !== undefined) Object.assign(set, { name: input.name, name_lower: foldName(input.name) });
      if (input.deploy_target !== undefined) set.deploy_target = input.deploy_target;
      if (target !== current.status) set.status = target;
      try {
        const updated = await this.deps.projects.update(confinement(principal), id, current.status, set);
        if (updated) {
          const changes = Object.fromEntries(
            (['name', 'deploy_target', 'status'] as const).filter((k) => input[k] !== undefined && input[k] !== current[k]).map((k) => [k, { from: current[k], to: updated[k] }]),
          );
          await this.deps.eventLog.record('project.updated', principal, inProject(updated), { changes });
          return updated;
        }
      } catch (err) {
        if (err instanceof DuplicateProjectName) throw conflict('A project with this name already exists in the account.');
        throw err;
      }
      // It changed status (or vanished) between the read and the write: decide again on fresh state.
    }
    throw conflict('The project is being changed concurrently; retry.');
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const project = await this.get(principal, id);
    authorize(principal, 'delete', 'project', project);
    if (!(await this.deps.projects.delete(confinement(principal), id))) throw notFound('project');
    await this.deps.quotas.release('projects', project._id);
    for (const hook of this.#hooks) await hook(project, principal);
    await this.deps.eventLog.record('project.deleted', principal, inProject(project), { name: project.name });
  }
}
