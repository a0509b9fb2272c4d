import type { Collection, Db, Filter } from 'mongodb';
import type { Scope, Actor } from '../domain/principal.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

export type ApiKeyStatus = 'active' | 'revoked';

/**
 * An API key of one project. Its secrets (current and, during a rotation grace period, previous) live
 * in `api_key_secrets`, only as SHA-256.
 */
export interface ApiKeyDoc {
  _id: string;
  account_id: string;
  project_id: string;
  name: string;
  scopes: Scope[];
  /** First 8 characters of the current secret (`slw_AbCd`). */
  prefix: string;
  last_four: string;
  status: ApiKeyStatus;
  created_at: Date;
  updated_at: Date;
  created_by: Actor;
  /** Not stored here: filled from `api_key_usage` when read through the service. */
  last_used_at: Date | null;
  expires_at: Date | null;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

export class ApiKeyRepository {
  readonly collection: Collection<ApiKeyDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ApiKeyDoc>('api_keys');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ account_id: 1, project_id: 1, _id: 1 }, { name: 'project_keys' });
    await this.collection.createIndex({ project_id: 1, status: 1 }, { name: 'project_key_status' });
  }

  async insert(doc: ApiKeyDoc): Promise<void> {
    const { last_used_at: _unused, ...stored } = doc;
    await this.collection.insertOne(stored as ApiKeyDoc);
  }

  async deleteById(id: string): Promise<void> {
    await this.collection.deleteOne({ _id: String(id) });
  }

  /** For authentication only: no tenant filter, the secret lookup already proved which key it is. */
  async findById(id: string): Promise<ApiKeyDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  async findInProject(accountId: string, projectId: string, id: string): Promise<ApiKeyDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId), project_id: String(projectId) });
  }

  /** Oldest first. */
  async page(accountId: string, projectId: string, filter: { status?: ApiKeyStatus }, page: PageRequest): Promise<PageResult<ApiKeyDoc>> {
    const query: Filter<ApiKeyDoc> = { account_id: String(accountId), project_id: String(projectId) };
    if (filter.status !== undefined) query.status = filter.status === 'revoked' ? 'revoked' : 'active';
    return await findPage(this.collection, query, { _id: 1 }, page);
  }

  /** Records a rotation, only while the key is active. Callers hold the key's lease. */
  async recordRotation(id: string, hints: { prefix: string; last_four: string }, at: Date): Promise<ApiKeyDoc | null> {
    return await this.collection.findOneAndUpdate(
      { _id: String(id), status: 'active' },
      { $set: { prefix: hints.prefix, last_four: hints.last_four, rotated_at: at, updated_at: at } },
      { returnDocument: 'after' },
    );
  }

  /** Null when the key was not active (already revoked, or missing). Callers hold the key's lease. */
  async revoke(accountId: string, projectId: string, id: string, at: Date): Promise<ApiKeyDoc | null> {
    return await this.collection.findOneAndUpdate(
      { _id: String(id), account_id: String(accountId), project_id: String(projectId), status: 'active' },
      { $set: { status: 'revoked', revoked_at: at, updated_at: at } },
      { returnDocument: 'after' },
    );
  }

  async activeForProject(accountId: string, projectId: string): Promise<ApiKeyDoc[]> {
    return await this.collection.find({ account_id: String(accountId), project_id: String(projectId), status: 'active' }).toArray();
  }

  async idsForProject(accountId: string, projectId: string): Promise<string[]> {
    const docs = await this.collection.find({ account_id: String(accountId), project_id: String(projectId) }, { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }
}
