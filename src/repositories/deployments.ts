import type { Collection, Db, Filter } from 'mongodb';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { findPage } from './page.ts';
import type { Actor } from '../domain/principal.ts';
import { idFloor } from '../lib/ids.ts';

import type { DeploymentKind, DeploymentStatus } from '../domain/deployments.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

export type CreatedBy = Actor;

export interface DeploymentDoc {
  _id: string;
  account_id: string;
  project_id: string;
  environment: string;
  branch: string;
  commit_sha: string | null;
  status: DeploymentStatus;
  status_message: string | null;
  url: string | null;
  created_by: CreatedBy;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** docs/product.md §9; absent on deployments made before kinds existed (read as `deploy`, null). */
  kind?: DeploymentKind;
  source_deployment_id?: string | null;
  /**
   * While `waiting`: when the service moves it to `queued` (approvals met, plus the wait timer); null
   * while approvals are missing.
   */
  due_at?: Date | null;
  /** While waiting: the approvals and wait timer it was created under. */
  required_approvals?: number;
  wait_timer_seconds?: number;
}

type Settable = Partial<Pick<DeploymentDoc, 'status' | 'status_message' | 'url' | 'updated_at' | 'started_at' | 'finished_at' | 'due_at'>>;

export interface DeploymentFilter {
  environment?: string;
  status?: DeploymentStatus;
  branch?: string;
}

export class DeploymentRepository {
  readonly collection: Collection<DeploymentDoc>;
  constructor(db: Db) {
    this.collection = db.collection<DeploymentDoc>('deployments');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ project_id: 1, _id: -1 }, { name: 'project_deployments' });
    // The list's filter and sort (newest first), so that a page is read from the index alone.
    await this.collection.createIndex({ account_id: 1, project_id: 1, _id: -1 }, { name: 'account_project_deployments' });
    await this.collection.createIndex({ project_id: 1, environment: 1, status: 1 }, { name: 'project_environment_status' });
    // The scheduler's question (docs/product.md §9): which waiting deployments are due.
    await this.collection.createIndex({ status: 1, due_at: 1 }, { name: 'status_due' });
    // The project's changes as they happen (docs/product.md §10, "Deployment changes").
    await this.collection.createIndex({ account_id: 1, project_id: 1, updated_at: 1, _id: 1 }, { name: 'account_project_updated' });
  }

  async insert(doc: DeploymentDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  /**
   * By `_id` alone (FerretDB answers that from its primary key but scans for compound filters), then
   * checked: a deployment of another project or account is null.
   */
  async findInProject(accountId: string, projectId: string, id: string): Promise<DeploymentDoc | null> {
    const doc = await this.collection.findOne({ _id: String(id) });
    return doc && doc.account_id === accountId && doc.project_id === projectId ? doc : null;
  }

  /** Newest first, with optional exact-match filters. */
  async page(accountId: string, projectId: string, filter: DeploymentFilter, page: PageRequest): Promise<PageResult<DeploymentDoc>> {
    const query: Filter<DeploymentDoc> = { account_id: String(accountId), project_id: String(projectId) };
    if (filter.environment !== undefined) query.environment = String(filter.environment);
    if (filter.status !== undefined) query.status = String(filter.status) as DeploymentStatus;
    if (filter.branch !== undefined) query.branch = String(filter.branch);
    return await findPage(this.collection, query, { _id: -1 }, page);
  }

  /**
   * The project's deployments created at or after `since` (by the time part of their ids, on the
   * `project_deployments` index), newest first, only the fields an activity summary needs; at most `limit`.
   */
  async createdSince(accountId: string, projectId: string, since: Date, limit: number): Promise<Pick<DeploymentDoc, '_id' | 'status' | 'created_at' | 'finished_at'>[]> {
    return await this.collection
      .find(
        { project_id: String(projectId), _id: { $gte: idFloor('deployment', since.getTime()) }, account_id: String(accountId) },
        { projection: { _id: 1, status: 1, created_at: 1, finished_at: 1 }, sort: { _id: -1 }, limit },
      )
      .toArray();
  }

  /** The project's deployments updated after `since`, oldest change first, at most `limit`. */
  async changedSince(accountId: string, projectId: string, since: Date, limit: number): Promise<DeploymentDoc[]> {
    return await this.collection
      .find({ account_id: String(accountId), project_id: String(projectId), updated_at: { $gt: since } }, { sort: { updated_at: 1, _id: 1 }, limit })
      .toArray();
  }

  /** Moves a deployment only if it is still in `from` (no lost updates without transactions). */
  async transition(
    id: string,
    from: DeploymentStatus,
    set: Settable,
  ): Promise<DeploymentDoc | null> {
    return await this.collection.findOneAndUpdate({ _id: String(id), status: from }, { $set: set }, { returnDocument: 'after' });
  }

  /**
   * Marks succeeded deployments to the environment that are older than `newerThanId` superseded and
   * returns the ones this call moved (each move is conditional, so concurrent callers never both do).
   */
  async supersedeOlder(projectId: string, environment: string, newerThanId: string, at: Date): Promise<DeploymentDoc[]> {
    const older = await this.collection
      .find({ project_id: String(projectId), environment: String(environment), status: 'succeeded', _id: { $lt: String(newerThanId) } }, { projection: { _id: 1 } })
      .toArray();
    const moved: DeploymentDoc[] = [];
    for (const { _id } of older) {
      const doc = await this.transition(_id, 'succeeded', { status: 'superseded', updated_at: at });
      if (doc) moved.push(doc);
    }
    return moved;
  }

  /** Whether a deployment newer than `id` already succeeded in the environment. */
  async hasNewerSuccess(projectId: string, environment: string, id: string): Promise<boolean> {
    const doc = await this.collection.findOne(
      { project_id: String(projectId), environment: String(environment), status: 'succeeded', _id: { $gt: String(id) } },
      { projection: { _id: 1 } },
    );
    return doc !== null;
  }

  /** Waiting deployments whose time to be queued has come (any account), oldest due first. */
  async dueWaiting(now: Date, limit: number): Promise<DeploymentDoc[]> {
    return await this.collection.find({ status: 'waiting', due_at: { $lte: now } }, { sort: { due_at: 1 }, limit }).toArray();
  }

  /** The environment's deployments in one of `statuses`, oldest first. */
  async inEnvironment(projectId: string, environment: string, statuses: DeploymentStatus[]): Promise<DeploymentDoc[]> {
    return await this.collection
      .find({ project_id: String(projectId), environment: String(environment), status: { $in: statuses.map(String) as DeploymentStatus[] } }, { sort: { _id: 1 } })
      .toArray();
  }

  /** The environment's newest deployment in one of `statuses` older than `beforeId` (any, without it). */
  async newestIn(projectId: string, environment: string, statuses: DeploymentStatus[], beforeId?: string): Promise<DeploymentDoc | null> {
    const filter: Filter<DeploymentDoc> = { project_id: String(projectId), environment: String(environment), status: { $in: statuses.map(String) as DeploymentStatus[] } };
    if (beforeId !== undefined) filter._id = { $lt: String(beforeId) };
    return await this.collection.findOne(filter, { sort: { _id: -1 } });
  }

  /** The environment names the project's deployments went to. */
  async environments(accountId: string, projectId: string): Promise<string[]> {
    const names = await this.collection.distinct('environment', { project_id: String(projectId), account_id: String(accountId) });
    return names.filter((name): name is string => typeof name === 'string');
  }

  async deleteByProject(accountId: string, projectId: string): Promise<number> {
    const deletedCount = await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
    return deletedCount;
  }
}
