import type { Collection, Db } from 'mongodb';
import type { Actor, Scope } from '../domain/principal.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { findPage } from './page.ts';

/**
 * A project's trust in one CI identity (docs/product.md §13): tokens of `issuer` whose `aud` holds
 * `audience` and whose claims equal every value of `claims` may be exchanged for a token acting as the
 * project with `scopes`, deploying to `environments` (null: all), valid `max_ttl_seconds`.
 */
export interface TrustPolicyDoc {
  _id: string;
  account_id: string;
  project_id: string;
  name: string;
  issuer: string;
  audience: string;
  /** Claim name → the exact string the token must carry. Stored as a list: claim names may hold dots. */
  claims: { name: string; value: string }[];
  scopes: Scope[];
  environments: string[] | null;
  max_ttl_seconds: number;
  created_at: Date;
  created_by: Actor;
}

export class TrustPolicyRepository {
  readonly collection: Collection<TrustPolicyDoc>;
  constructor(db: Db) {
    this.collection = db.collection<TrustPolicyDoc>('trust_policies');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ account_id: 1, project_id: 1, _id: 1 }, { name: 'project_trust_policies' });
    await this.collection.createIndex({ issuer: 1, audience: 1 }, { name: 'trust_policy_issuer' });
  }

  async insert(doc: TrustPolicyDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findInProject(accountId: string, projectId: string, id: string): Promise<TrustPolicyDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId), project_id: String(projectId) });
  }

  /** Oldest first. */
  async page(accountId: string, projectId: string, _filter: object, page: PageRequest): Promise<PageResult<TrustPolicyDoc>> {
    return await findPage(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { _id: 1 }, page);
  }

  /**
   * Every policy of every account that trusts `issuer` (exact string) for one of `audiences`, oldest
   * first: the token exchange reads them, then keeps those whose claims the token carries.
   */
  async forIssuer(issuer: string, audiences: string[]): Promise<TrustPolicyDoc[]> {
    return await this.collection
      .find({ issuer: String(issuer), audience: { $in: audiences.map(String) } })
      .sort({ _id: 1 })
      .toArray();
  }

  /** Whether any policy names `issuer`: only then may a key fetch for it happen. */
  async anyForIssuer(issuer: string): Promise<boolean> {
    return (await this.collection.findOne({ issuer: String(issuer) }, { projection: { _id: 1 } })) !== null;
  }

  async delete(accountId: string, projectId: string, id: string): Promise<TrustPolicyDoc | null> {
    return await this.collection.findOneAndDelete({ _id: String(id), account_id: String(accountId), project_id: String(projectId) });
  }

  async deleteAllForProject(accountId: string, projectId: string): Promise<string[]> {
    const ids = (await this.collection.find({ account_id: String(accountId), project_id: String(projectId) }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
    return ids;
  }
}
