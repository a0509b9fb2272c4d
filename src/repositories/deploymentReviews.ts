import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Actor } from '../domain/principal.ts';
import { findPage } from './page.ts';

export type ReviewDecision = 'approve' | 'reject';

/**
 * A reviewer's one review of a waiting deployment (docs/product.md §9). The `_id` is
 * `${deployment_id}:${reviewer_id}`: a reviewer reviews once, claimed by the unique insert.
 */
export interface DeploymentReviewDoc {
  _id: string;
  review_id: string;
  account_id: string;
  project_id: string;
  deployment_id: string;
  reviewer: Actor;
  decision: ReviewDecision;
  comment: string | null;
  created_at: Date;
}

export const reviewKey = (deploymentId: string, reviewerId: string) => `${deploymentId}:${reviewerId}`;

export class DeploymentReviewRepository {
  readonly collection: Collection<DeploymentReviewDoc>;
  constructor(db: Db) {
    this.collection = db.collection<DeploymentReviewDoc>('deployment_reviews');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ deployment_id: 1, created_at: 1 }, { name: 'deployment_reviews' });
    await this.collection.createIndex({ account_id: 1, project_id: 1 }, { name: 'project_reviews' });
  }

  /** True for the one caller that recorded this reviewer's review of the deployment. */
  async claim(doc: DeploymentReviewDoc): Promise<boolean> {
    return await claimOnce(this.collection, doc);
  }

  /** Counted here from the deployment's few reviews (read by the index), not by a count the embedded database would answer by a scan. */
  async countApprovals(deploymentId: string): Promise<number> {
    const reviews = await this.collection.find({ deployment_id: String(deploymentId) }, { projection: { decision: 1 } }).toArray();
    return reviews.filter((review) => review.decision === 'approve').length;
  }

  /** Oldest first. */
  async page(deploymentId: string, page: PageRequest): Promise<PageResult<DeploymentReviewDoc>> {
    return await findPage(this.collection, { deployment_id: String(deploymentId) }, { created_at: 1, _id: 1 }, page);
  }

  async deleteByProject(accountId: string, projectId: string): Promise<number> {
    return await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
  }
}
