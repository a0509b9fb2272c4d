import type { Collection, Db } from 'mongodb';
import { writeUnique } from '../db/claims.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { findPage } from './page.ts';

import type { DeployTarget, ProjectStatus } from '../domain/projects.ts';

export interface ProjectDoc {
  _id: string;
  account_id: string;
  name: string;
  /** The name folded for case-insensitive uniqueness (FerretDB has no collation). */
  name_lower: string;
  status: ProjectStatus;
  deploy_target: DeployTarget | null;
  created_at: Date;
  updated_at: Date;
}

/** Which projects a caller may see: its account, and for an API key only its own project. */
export interface ProjectScope {
  accountId: string;
  projectId?: string;
}

export const foldName = (name: string) => name.normalize('NFC').toLowerCase();

export class DuplicateProjectName extends Error {}

/** The account's name is taken (the unique index `account_name_unique`). */
const taken = (): never => {
  throw new DuplicateProjectName();
};


export class ProjectRepository {
  readonly collection: Collection<ProjectDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ProjectDoc>('projects');
  }

  async ensureIndexes(): Promise<void> {
    // Never null or missing: ProjectService sets account_id (the caller's account) and name_lower (foldName of the validated name) on insert and on rename.
    await this.collection.createIndex({ account_id: 1, name_lower: 1 }, { unique: true, name: 'account_name_unique' });
    await this.collection.createIndex({ account_id: 1, _id: -1 }, { name: 'account_projects' });
  }

  #filter(scope: ProjectScope, id?: string) {
    const filter: { account_id: string; _id?: string } = { account_id: String(scope.accountId) };
    if (scope.projectId !== undefined) filter._id = String(scope.projectId);
    if (id !== undefined) {
      if (filter._id !== undefined && filter._id !== id) return null;
      filter._id = String(id);
    }
    return filter;
  }

  /** Throws DuplicateProjectName when the account already has the name (ignoring case). */
  async insert(doc: ProjectDoc): Promise<void> {
    await writeUnique(() => this.collection.insertOne(doc), taken);
  }

  /**
   * Looked up by `_id` alone and checked against the scope here: FerretDB (SQLite) answers a filter that
   * is only `_id` from its primary key, but scans the whole collection for `{_id, account_id}`. The
   * result is the same either way: someone else's project is null.
   */
  async find(scope: ProjectScope, id: string): Promise<ProjectDoc | null> {
    if (!this.#filter(scope, id)) return null;
    const doc = await this.collection.findOne({ _id: String(id) });
    return doc && doc.account_id === scope.accountId ? doc : null;
  }

  /** For the admin CLI only, which acts across accounts: no tenant filter. */
  async findById(id: string): Promise<ProjectDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  /** Newest first. */
  async page(scope: ProjectScope, page: PageRequest): Promise<PageResult<ProjectDoc>> {
    return await findPage(this.collection, this.#filter(scope)!, { _id: -1 }, page);
  }

  /**
   * Applies `set` only if the project is still in `expectedStatus` (optimistic concurrency: two
   * conflicting transitions cannot both win). Returns the updated project, or null if it moved or vanished.
   */
  async update(
    scope: ProjectScope,
    id: string,
    expectedStatus: ProjectStatus,
    set: Partial<Pick<ProjectDoc, 'name' | 'name_lower' | 'status' | 'deploy_target' | 'updated_at'>>,
  ): Promise<ProjectDoc | null> {
    const filter = this.#filter(scope, id);
    if (!filter) return null;
    return await writeUnique(() => this.collection.findOneAndUpdate({ ...filter, status: expectedStatus }, { $set: set }, { returnDocument: 'after' }), taken);
  }

  async delete(scope: ProjectScope, id: string): Promise<boolean> {
    // Ownership is checked first (see find); ids are never reused, so deleting by `_id` is then exact.
    if (!(await this.find(scope, id))) return false;
    const { deletedCount } = await this.collection.deleteOne({ _id: String(id) });
    return deletedCount === 1;
  }
}
