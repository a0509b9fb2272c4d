import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/**
 * What must happen once to a deployment, across instances (docs/product.md §9), each a claim
 * (src/db/claims.ts) whose `_id` names it:
 * - `${deployment_id}#decided`: the one way out of `waiting` (to `queued`, `rejected` or `canceled`);
 *   its holder makes the move and records it. `decision` says which.
 * - `${deployment_id}#approved`: the approvals were met (its holder records `deployment.approved`).
 * - `serial:${project_id}/${environment}`: the one deployment of a serial environment in `building` or
 *   `deploying` (`deployment_id`), removed by it when it leaves them; `…~${deployment_id}` is the ticket
 *   of whoever removes a slot whose holder finished without giving it back.
 * Each names its project, and goes with it when the project is deleted (claims made before they named
 * it stay behind: a few small records per reviewed deployment).
 */
export interface DeploymentClaimDoc {
  _id: string;
  account_id?: string;
  project_id?: string;
  deployment_id: string;
  decision?: 'queued' | 'rejected' | 'canceled';
  claimed_at: Date;
}

/** The deployment a claim is about, and its project. */
export interface ClaimedDeployment {
  _id: string;
  account_id: string;
  project_id: string;
}
/** The project a slot is of. */
export interface ClaimedProject {
  _id: string;
  account_id: string;
}

const decidedKey = (deploymentId: string) => `${deploymentId}#decided`;
/** The fields that tie a claim to its project (deleteByProject) and its deployment. */
const owner = (project: ClaimedProject, deploymentId: string) => ({ account_id: project.account_id, project_id: project._id, deployment_id: deploymentId });
const about = (deployment: ClaimedDeployment) => owner({ _id: deployment.project_id, account_id: deployment.account_id }, deployment._id);
const slotKey = (projectId: string, environment: string) => `serial:${projectId}/${environment}`;

export class DeploymentClaimRepository {
  readonly collection: Collection<DeploymentClaimDoc>;
  constructor(db: Db) {
    this.collection = db.collection<DeploymentClaimDoc>('deployment_claims');
  }

  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ deployment_id: 1 }, { name: 'deployment' });
    await this.collection.createIndex({ account_id: 1, project_id: 1 }, { name: 'project_claims' });
  }

  async deleteByProject(accountId: string, projectId: string): Promise<number> {
    return await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
  }

  /** True for the one caller that decides how the deployment leaves `waiting`. */
  async decide(deployment: ClaimedDeployment, decision: NonNullable<DeploymentClaimDoc['decision']>, at: Date): Promise<boolean> {
    return await claimOnce(this.collection, { _id: decidedKey(deployment._id), ...about(deployment), decision, claimed_at: at });
  }

  async decision(deploymentId: string): Promise<DeploymentClaimDoc | null> {
    return await this.collection.findOne({ _id: decidedKey(deploymentId) });
  }

  /** True for the one caller that found the approvals met. */
  async approved(deployment: ClaimedDeployment, at: Date): Promise<boolean> {
    return await claimOnce(this.collection, { _id: `${deployment._id}#approved`, ...about(deployment), claimed_at: at });
  }

  /** True when the deployment now holds the serial environment's slot (it took it, or already had it). */
  async takeSlot(project: ClaimedProject, environment: string, deploymentId: string, at: Date): Promise<boolean> {
    if (await claimOnce(this.collection, { _id: slotKey(project._id, environment), ...owner(project, deploymentId), claimed_at: at })) return true;
    return (await this.slotHolder(project._id, environment))?.deploymentId === deploymentId;
  }

  /** Who holds the slot, since when. */
  async slotHolder(projectId: string, environment: string): Promise<{ deploymentId: string; since: Date } | null> {
    const doc = await this.collection.findOne({ _id: slotKey(projectId, environment) });
    return doc ? { deploymentId: doc.deployment_id, since: doc.claimed_at } : null;
  }

  /**
   * Frees the slot a finished holder left behind: of the callers that found it so, the one that inserts
   * the ticket for that holder removes it (a delete filtered on the holder is not atomic on FerretDB 1.24).
   */
  async freeStaleSlot(project: ClaimedProject, environment: string, holder: string, at: Date): Promise<void> {
    const key = slotKey(project._id, environment);
    if (await claimOnce(this.collection, { _id: `${key}~${holder}`, ...owner(project, holder), claimed_at: at })) await this.collection.deleteOne({ _id: key, deployment_id: holder });
  }

  /** The holder gives the slot back (only its own). */
  async releaseSlot(projectId: string, environment: string, deploymentId: string): Promise<void> {
    await this.collection.deleteOne({ _id: slotKey(projectId, environment), deployment_id: deploymentId });
  }
}
