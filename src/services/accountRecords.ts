import type { PageRequest, PageResult } from '../domain/page.ts';
import { authorize, type Action, type Resource } from '../domain/policy.ts';
import type { Principal } from '../domain/principal.ts';
import { found } from '../errors.ts';
import { Service } from './service.ts';

/** The resources the policy has a `list` and a `read` action for. */
type Readable = { [R in Resource]: 'list' extends Action<R> ? ('read' extends Action<R> ? R : never) : never }[Resource];

/** A repository of records that belong to an account (users, OAuth clients, webhook endpoints). */
export interface AccountCollection<T> {
  page(accountId: string, page: PageRequest): Promise<PageResult<T>>;
  findInAccount(accountId: string, id: string): Promise<T | null>;
}

/**
 * Reading an account's records of one kind, the one way: the policy asked first (`list` / `read`), the
 * query confined to the principal's account, and a record out of reach answered as missing (404,
 * whether it does not exist or belongs to another account).
 */
export class AccountRecords<T, R extends Readable> {
  readonly #collection: AccountCollection<T>;
  readonly #resource: R;

  constructor(collection: AccountCollection<T>, resource: R) {
    this.#collection = collection;
    this.#resource = resource;
  }

  async list(principal: Principal, page: PageRequest): Promise<PageResult<T>> {
    authorize<Readable>(principal, 'list', this.#resource);
    return await this.#collection.page(principal.accountId, page);
  }

  async get(principal: Principal, id: string): Promise<T> {
    authorize<Readable>(principal, 'read', this.#resource);
    return found(await this.#collection.findInAccount(principal.accountId, id), this.#resource);
  }
}

/**
 * A service of an account's records of one kind: `list` and `get` are the records' own (above); the
 * service adds its changes.
 */
export abstract class AccountRecordService<Deps, T, R extends Readable> extends Service<Deps> {
  protected abstract readonly records: AccountRecords<T, R>;

  async list(principal: Principal, page: PageRequest): Promise<PageResult<T>> {
    return await this.records.list(principal, page);
  }

  /** The record, or 404 whether it does not exist or belongs to another account. */
  async get(principal: Principal, id: string): Promise<T> {
    return await this.records.get(principal, id);
  }
}

/** A repository of records that belong to a project (deployments, configurations, API keys). */
export interface ProjectCollection<T, F> {
  page(accountId: string, projectId: string, filter: F, page: PageRequest): Promise<PageResult<T>>;
  findInProject(accountId: string, projectId: string, id: string): Promise<T | null>;
}

/** A project as the records inside it need it: where they are. */
export interface ProjectPlace {
  _id: string;
  account_id: string;
}

/** Finds a project for a principal, 404 outside its reach (ProjectService). */
export interface ProjectFinder {
  get(principal: Principal, id: string): Promise<ProjectPlace>;
}

/**
 * Reading a project's records of one kind, the one way: the policy asked first (`list` / `read`, or
 * the stronger action the caller names, such as `reveal`), then the project found for the principal
 * (404 outside its account, or for an API key outside its own project), then the record in that
 * project (404 otherwise). `complete` adds what a record keeps elsewhere (an API key's last use).
 */
export class ProjectRecords<T, F, R extends Readable> {
  readonly #collection: ProjectCollection<T, F>;
  readonly #resource: R;
  readonly #projects: ProjectFinder;
  readonly #complete: (docs: T[]) => Promise<T[]>;

  constructor(collection: ProjectCollection<T, F>, resource: R, projects: ProjectFinder, complete: (docs: T[]) => Promise<T[]> = async (docs) => docs) {
    this.#collection = collection;
    this.#resource = resource;
    this.#projects = projects;
    this.#complete = complete;
  }

  async list(principal: Principal, projectId: string, filter: F, page: PageRequest, action: Action<R> = 'list'): Promise<PageResult<T>> {
    authorize<R>(principal, action, this.#resource);
    const project = await this.#projects.get(principal, projectId);
    const result = await this.#collection.page(project.account_id, project._id, filter, page);
    return { items: await this.#complete(result.items), total: result.total };
  }

  async get(principal: Principal, projectId: string, id: string, action: Action<R> = 'read'): Promise<T> {
    authorize<R>(principal, action, this.#resource);
    return await this.find(await this.#projects.get(principal, projectId), id);
  }

  /** The record in a project already found for the principal, or 404. */
  async find(project: ProjectPlace, id: string): Promise<T> {
    const doc = found(await this.#collection.findInProject(project.account_id, project._id, id), this.#resource);
    return (await this.#complete([doc]))[0]!;
  }
}

/**
 * A service of a project's records of one kind: `list` and `get` are the records' own (above); the
 * service adds its changes.
 */
export abstract class ProjectRecordService<Deps, T, F, R extends Readable> extends Service<Deps> {
  protected abstract readonly records: ProjectRecords<T, F, R>;

  async list(principal: Principal, projectId: string, filter: F, page: PageRequest): Promise<PageResult<T>> {
    return await this.records.list(principal, projectId, filter, page);
  }

  /** The record, or 404 whether it, or its project, does not exist or is out of the principal's reach. */
  async get(principal: Principal, projectId: string, id: string): Promise<T> {
    return await this.records.get(principal, projectId, id);
  }
}
