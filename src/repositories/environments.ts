import type { Collection, Db } from 'mongodb';
import { writeUnique } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Actor } from '../domain/principal.ts';
import { newId } from '../lib/ids.ts';
import { findPage } from './page.ts';

/** docs/product.md §9: who may deploy to an environment and when. */
export interface Protection {
  required_approvals: number;
  /** User ids (`usr_…`) and/or roles; empty: any admin or owner. */
  reviewers: string[];
  prevent_self_review: boolean;
  wait_timer_seconds: number;
  /** Globs (src/lib/branchGlob.ts); null: any branch. */
  branch_patterns: string[] | null;
}

export interface EnvironmentLock {
  reason: string;
  locked_by: Actor;
  locked_at: Date;
}

export interface FreezeWindow {
  starts_at: Date;
  ends_at: Date;
  reason: string;
}

/** One per project and name (unique index), made on its first deployment when no one made it before. */
export interface EnvironmentDoc {
  _id: string;
  account_id: string;
  project_id: string;
  name: string;
  url: string | null;
  protection: Protection;
  serial: boolean;
  cancel_superseded: boolean;
  lock: EnvironmentLock | null;
  freeze_windows: FreezeWindow[];
  created_at: Date;
  updated_at: Date;
}

export type EnvironmentChanges = Partial<Pick<EnvironmentDoc, 'url' | 'protection' | 'serial' | 'cancel_superseded' | 'lock' | 'freeze_windows' | 'updated_at'>>;

/** The rules of an environment nobody has set any for. */
export const NO_PROTECTION: Protection = { required_approvals: 0, reviewers: [], prevent_self_review: false, wait_timer_seconds: 0, branch_patterns: null };

/** An environment of `project` named `name` without rules: what a first deployment to a name makes. */
export function blankEnvironment(project: { _id: string; account_id: string }, name: string, now: Date, id?: string): EnvironmentDoc {
  return {
    _id: id ?? newId('environment', now.getTime()),
    account_id: project.account_id,
    project_id: project._id,
    name,
    url: null,
    protection: { ...NO_PROTECTION },
    serial: false,
    cancel_superseded: false,
    lock: null,
    freeze_windows: [],
    created_at: now,
    updated_at: now,
  };
}

export class EnvironmentRepository {
  readonly collection: Collection<EnvironmentDoc>;
  constructor(db: Db) {
    this.collection = db.collection<EnvironmentDoc>('environments');
  }

  async ensureIndexes(): Promise<void> {
    // Never null or missing: project_id is the project's and name is required by the schema; no update sets either.
    await this.collection.createIndex({ project_id: 1, name: 1 }, { unique: true, name: 'project_name_unique' });
  }

  /** Inserts `doc`; false when the project already has an environment of that name (on any instance). */
  async insert(doc: EnvironmentDoc): Promise<boolean> {
    return await writeUnique(
      async () => {
        await this.collection.insertOne(doc);
        return true;
      },
      () => false,
    );
  }

  async findByName(accountId: string, projectId: string, name: string): Promise<EnvironmentDoc | null> {
    return await this.collection.findOne({ project_id: String(projectId), name: String(name), account_id: String(accountId) });
  }

  /** Ordered by name. */
  async page(accountId: string, projectId: string, page: PageRequest): Promise<PageResult<EnvironmentDoc>> {
    return await findPage(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { name: 1 }, page);
  }

  async update(id: string, changes: EnvironmentChanges): Promise<EnvironmentDoc | null> {
    return await this.collection.findOneAndUpdate({ _id: String(id) }, { $set: changes }, { returnDocument: 'after' });
  }

  async delete(id: string): Promise<EnvironmentDoc | null> {
    return await this.collection.findOneAndDelete({ _id: String(id) });
  }

  async deleteByProject(accountId: string, projectId: string): Promise<number> {
    return await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
  }
}
