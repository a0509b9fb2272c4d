import type { PageRequest, PageResult } from '../domain/page.ts';
import { authorize } from '../domain/policy.ts';
import type { Principal } from '../domain/principal.ts';
import { conflict, notFound } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { EnvironmentView } from '../presenters/environments.ts';
import type { EnvironmentChanges, EnvironmentDoc, FreezeWindow, Protection } from '../repositories/environments.ts';
import { blankEnvironment, NO_PROTECTION } from '../repositories/environments.ts';
import type { Repositories } from '../repositories/index.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import type { CreateEnvironmentBody, UpdateEnvironmentBody } from '../schemas/environments.ts';
import { actorOf, type EventAuthor, type EventLog } from './eventLog.ts';
import type { LockService } from './locking.ts';
import type { ProjectService } from './projects.ts';
import { Service } from './service.ts';
export type { EnvironmentDoc, Protection, FreezeWindow } from '../repositories/environments.ts';

export interface EnvironmentServiceDeps extends Pick<Repositories, 'environments' | 'deployments'> {
  eventLog: EventLog;
  locks: LockService;
  projects: ProjectService;
  /** Lock times and freeze windows are judged by it. */
  clock: Clock;
}

type FreezeWindowInput = NonNullable<CreateEnvironmentBody['freeze_windows']>[number];
const freezeWindows = (windows: FreezeWindowInput[]): FreezeWindow[] =>
  windows.map((w) => ({ starts_at: new Date(w.starts_at), ends_at: new Date(w.ends_at), reason: w.reason }));

/** What an event says of an environment: its name and rules, never more. */
const eventData = (doc: EnvironmentDoc, extra: Record<string, unknown> = {}) => ({ environment_id: doc._id, environment: doc.name, ...extra });

/**
 * A project's environments and their rules (docs/product.md §9). One per project and name: the unique
 * index decides between two instances that make the same one (an explicit create, or the first
 * deployment to a name, which makes it without rules).
 */
export class EnvironmentService extends Service<EnvironmentServiceDeps> {
  async list(principal: Principal, projectId: string, page: PageRequest): Promise<PageResult<EnvironmentView>> {
    authorize(principal, 'list', 'environment');
    const project = await this.deps.projects.get(principal, projectId);
    const result = await this.deps.environments.page(project.account_id, project._id, page);
    return { items: await Promise.all(result.items.map((doc) => this.#view(doc))), total: result.total };
  }

  async get(principal: Principal, projectId: string, name: string): Promise<EnvironmentView> {
    authorize(principal, 'read', 'environment');
    const project = await this.deps.projects.get(principal, projectId);
    return await this.#view(await this.#find(principal, project, name));
  }

  async create(principal: Principal, projectId: string, input: CreateEnvironmentBody, id?: string): Promise<EnvironmentView> {
    authorize(principal, 'create', 'environment');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const now = this.deps.clock.date();
    const doc: EnvironmentDoc = {
      ...blankEnvironment(project, input.name, now, id),
      url: input.url ?? null,
      protection: { ...NO_PROTECTION, ...input.protection, reviewers: input.protection?.reviewers ?? [], branch_patterns: input.protection?.branch_patterns ?? null },
      serial: input.serial ?? false,
      cancel_superseded: input.cancel_superseded ?? false,
      freeze_windows: freezeWindows(input.freeze_windows ?? []),
    };
    if (!(await this.deps.environments.insert(doc))) {
      // The same request run again (Idempotency-Key) finds its own environment.
      const existing = id ? await this.deps.environments.findByName(project.account_id, project._id, input.name) : null;
      if (existing && existing._id === id) return await this.#view(existing);
      throw conflict(`The project already has an environment named ${input.name}.`);
    }
    await this.deps.eventLog.record('environment.created', principal, doc, eventData(doc, { protection: doc.protection, serial: doc.serial }), now);
    return await this.#view(doc);
  }

  async update(principal: Principal, projectId: string, name: string, input: UpdateEnvironmentBody): Promise<EnvironmentView> {
    authorize(principal, 'update', 'environment');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const current = await this.#find(principal, project, name);
    const updated = await this.deps.locks.run(`environment:${current._id}`, async () => {
      const fresh = (await this.deps.environments.findByName(project.account_id, project._id, name)) ?? current;
      const changes: EnvironmentChanges = { updated_at: this.deps.clock.date() };
      if (input.url !== undefined) changes.url = input.url;
      if (input.protection !== undefined) changes.protection = { ...fresh.protection, ...definedOnly(input.protection) } as Protection;
      if (input.serial !== undefined) changes.serial = input.serial;
      if (input.cancel_superseded !== undefined) changes.cancel_superseded = input.cancel_superseded;
      if (input.freeze_windows !== undefined) changes.freeze_windows = freezeWindows(input.freeze_windows);
      return await this.deps.environments.update(fresh._id, changes);
    });
    if (!updated) throw notFound('environment');
    await this.deps.eventLog.record('environment.updated', principal, updated, eventData(updated, { changed: Object.keys(input), protection: updated.protection, serial: updated.serial }));
    return await this.#view(updated);
  }

  /** Its deployments stay; a new deployment to the name makes it again, without rules. */
  async delete(principal: Principal, projectId: string, name: string): Promise<void> {
    authorize(principal, 'delete', 'environment');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const current = await this.#find(principal, project, name);
    const deleted = await this.deps.environments.delete(current._id);
    if (!deleted) throw notFound('environment');
    await this.deps.eventLog.record('environment.deleted', principal, deleted, eventData(deleted));
  }

  /** Locks (with `reason`) or unlocks (`null`): a locked environment refuses new deployments. */
  async setLock(principal: Principal, projectId: string, name: string, reason: string | null): Promise<EnvironmentView> {
    authorize(principal, 'lock', 'environment');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const current = await this.#find(principal, project, name, { create: reason !== null });
    const now = this.deps.clock.date();
    const lock = reason === null ? null : { reason, locked_by: actorOf(principal), locked_at: now };
    const updated = await this.deps.environments.update(current._id, { lock, updated_at: now });
    if (!updated) throw notFound('environment');
    await this.deps.eventLog.record(lock ? 'environment.locked' : 'environment.unlocked', principal, updated, eventData(updated, lock ? { reason } : {}), now);
    return await this.#view(updated);
  }

  /**
   * The environment `name` of the project, made without rules if it has none yet (the first deployment
   * to a name). Of two instances making it at once, the unique index keeps one; both answer with it.
   */
  async ensure(by: EventAuthor, project: ProjectDoc, name: string): Promise<EnvironmentDoc> {
    const existing = await this.deps.environments.findByName(project.account_id, project._id, name);
    if (existing) return existing;
    const now = this.deps.clock.date();
    const doc = blankEnvironment(project, name, now);
    if (await this.deps.environments.insert(doc)) {
      await this.deps.eventLog.record('environment.created', by, doc, eventData(doc, { protection: doc.protection, serial: false }), now);
      return doc;
    }
    const made = await this.deps.environments.findByName(project.account_id, project._id, name);
    if (!made) throw conflict('The environment is being changed concurrently; retry.');
    return made;
  }

  /** The environment as the rules read it (or null: no rules). */
  async rulesOf(project: Pick<ProjectDoc, '_id' | 'account_id'>, name: string): Promise<EnvironmentDoc | null> {
    return await this.deps.environments.findByName(project.account_id, project._id, name);
  }

  /** The deployment that succeeded last in the environment (superseded ones are no longer live). */
  async currentDeploymentId(projectId: string, name: string): Promise<string | null> {
    return (await this.deps.deployments.newestIn(projectId, name, ['succeeded']))?._id ?? null;
  }

  /** An environment of the project (with `create`, made without rules if it has none by that name); otherwise 404. */
  async #find(by: EventAuthor, project: ProjectDoc, name: string, options: { create?: boolean } = {}): Promise<EnvironmentDoc> {
    const doc = await this.deps.environments.findByName(project.account_id, project._id, name);
    if (doc) return doc;
    if (options.create) return await this.ensure(by, project, name);
    throw notFound('environment');
  }

  async #view(doc: EnvironmentDoc): Promise<EnvironmentView> {
    return { ...doc, current_deployment_id: await this.currentDeploymentId(doc.project_id, doc.name) };
  }
}

/** The fields a partial input sets (undefined ones keep the stored value). */
function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
