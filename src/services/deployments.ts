import type { Principal, Actor } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { deploymentActivity, periodStart, type DeploymentActivity } from '../domain/deploymentActivity.ts';
import { conflict, invalidTransition, projectNotActive } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { DeploymentDoc, DeploymentFilter } from '../repositories/deployments.ts';
import type { Repositories } from '../repositories/index.ts';
import { canMoveDeployment, FINISHED_STATUSES, type DeploymentStatus } from '../domain/deployments.ts';
import { acceptsDeployments } from '../domain/projects.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import { createOnceInProject } from './createOnce.ts';
import { actorOf, type EventLog } from './eventLog.ts';
import type { ProjectService } from './projects.ts';
import type { CreateDeploymentBody, UpdateDeploymentBody } from '../schemas/deployments.ts';
import { ProjectRecordService, ProjectRecords } from './accountRecords.ts';
export type { DeploymentDoc } from '../repositories/deployments.ts';

/** Deployments read for an activity summary: a month of a very busy project (over 300 a day). */
const ACTIVITY_LIMIT = 10_000;

export interface DeploymentServiceDeps extends Pick<Repositories, 'deployments'> {
  eventLog: EventLog;
  /** Finds the project for the principal (404 outside its reach). */
  projects: ProjectService;
}

export class DeploymentService extends ProjectRecordService<DeploymentServiceDeps, DeploymentDoc, DeploymentFilter, 'deployment'> {
  protected readonly records = new ProjectRecords(this.deps.deployments, 'deployment', this.deps.projects);

  /**
   * 201 queued; the project must be visible (else 404) and active (else 409 project_not_active). `id`
   * is the id reserved for this request (Idempotency-Key): a deployment that already has it was made
   * by an earlier run of the request and is returned as it is, whatever the project's status now.
   */
  async create(principal: Principal, projectId: string, input: CreateDeploymentBody, id?: string): Promise<DeploymentDoc> {
    authorize(principal, 'create', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    authorize(principal, 'create', 'deployment', { account_id: project.account_id, project_id: project._id, environment: input.environment });
    const deployments = this.deps.deployments;
    return await createOnceInProject(project, id, (...at) => deployments.findInProject(...at), () => this.#insert(principal, project, input, id));
  }

  async #insert(principal: Principal, project: ProjectDoc, input: CreateDeploymentBody, id: string | undefined): Promise<DeploymentDoc> {
    if (!acceptsDeployments(project.status)) throw projectNotActive(`The project is ${project.status}; it accepts no new deployments.`);
    const now = new Date();
    const doc: DeploymentDoc = {
      _id: id ?? newId('deployment', now.getTime()),
      account_id: project.account_id,
      project_id: project._id,
      environment: input.environment,
      branch: input.branch,
      commit_sha: input.commit_sha ?? null,
      status: 'queued',
      status_message: null,
      url: null,
      created_by: actorOf(principal),
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.deps.deployments.insert(doc);
    const data = { deployment_id: doc._id, environment: doc.environment, branch: doc.branch, commit_sha: doc.commit_sha };
    await this.deps.eventLog.record('deployment.created', principal, doc, data, now);
    return doc;
  }


  /**
   * How the project's deployments went over the last `days` UTC days (today included): per day by
   * outcome, and the median time from creation to success. Reads at most ACTIVITY_LIMIT deployments.
   */
  async activity(principal: Principal, projectId: string, days = 30, now = new Date()): Promise<DeploymentActivity> {
    authorize(principal, 'list', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    const recent = await this.deps.deployments.createdSince(project.account_id, project._id, periodStart(days, now), ACTIVITY_LIMIT);
    return deploymentActivity(recent, days, now);
  }

  /**
   * A deployer reports progress. Moves outside the state machine → 409 invalid_transition; reporting
   * the current status again only updates `status_message`/`url`. An archived project refuses the
   * write (409 project_not_active); a paused one lets running deployments finish. `started_at` is set
   * on leaving `queued` for `building`, `finished_at` on reaching succeeded/failed/canceled. When one
   * succeeds, older successes to the same environment become `superseded` (and it does itself if a
   * newer one already succeeded).
   */
  async updateStatus(principal: Principal, projectId: string, id: string, input: UpdateDeploymentBody): Promise<DeploymentDoc> {
    authorize(principal, 'update', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    if (project.status === 'archived') throw projectNotActive('The project is archived; unarchive it before changing its deployments.');
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.records.find(project, id);
      authorize(principal, 'update', 'deployment', current);
      const to = input.status;
      if (to !== current.status && !canMoveDeployment(current.status, to))
        throw invalidTransition(`A deployment cannot move from ${current.status} to ${to}.`);
      const now = new Date();
      const set: Partial<DeploymentDoc> = { updated_at: now };
      if (input.status_message !== undefined) set.status_message = input.status_message;
      if (input.url !== undefined) set.url = input.url;
      if (to !== current.status) {
        set.status = to;
        if (to === 'building') set.started_at = now;
        if (FINISHED_STATUSES.has(to)) set.finished_at = now;
      }
      const updated = await this.deps.deployments.transition(current._id, current.status, set);
      if (!updated) continue;
      const actor = actorOf(principal);
      if (to !== current.status) await this.#statusChanged(updated, current.status, actor);
      if (to === 'succeeded' && current.status !== 'succeeded') return await this.#supersede(updated, now, actor);
      return updated;
    }
    throw conflict('The deployment is being changed concurrently; retry.');
  }

  /**
   * Without transactions, each success first marks itself, then supersedes older successes and checks
   * for a newer one: of two concurrent successes at least one sees the other, so exactly the newest
   * stays `succeeded`.
   */
  async #supersede(deployment: DeploymentDoc, now: Date, actor: Actor): Promise<DeploymentDoc> {
    for (const older of await this.deps.deployments.supersedeOlder(deployment.project_id, deployment.environment, deployment._id, now))
      await this.#statusChanged(older, 'succeeded', actor, deployment._id);
    if (await this.deps.deployments.hasNewerSuccess(deployment.project_id, deployment.environment, deployment._id)) {
      const superseded = await this.deps.deployments.transition(deployment._id, 'succeeded', { status: 'superseded', updated_at: new Date() });
      if (superseded) {
        await this.#statusChanged(superseded, 'succeeded', actor);
        return superseded;
      }
    }
    return deployment;
  }

  async #statusChanged(deployment: DeploymentDoc, from: DeploymentStatus, actor: Actor, supersededBy?: string): Promise<void> {
    const data = { deployment_id: deployment._id, environment: deployment.environment, from, to: deployment.status, ...(supersededBy ? { superseded_by: supersededBy } : {}) };
    await this.deps.eventLog.record('deployment.status_changed', actor, deployment, data);
  }
}
