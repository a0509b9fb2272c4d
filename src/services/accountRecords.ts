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
