import type { Principal, Actor } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { deploymentActivity, periodStart, type DeploymentActivity } from '../domain/deploymentActivity.ts';
import { conflict, environmentRefusal, forbidden, insufficientScope, invalidTransition, projectNotActive } from '../errors.ts';
import { branchAllowed } from '../lib/branchGlob.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { DeploymentDoc, DeploymentFilter } from '../repositories/deployments.ts';
import type { DeploymentReviewDoc } from '../repositories/deploymentReviews.ts';
import { reviewKey } from '../repositories/deploymentReviews.ts';
import type { EnvironmentDoc } from '../repositories/environments.ts';
import type { Repositories } from '../repositories/index.ts';
import { ACTIVE_STATUSES, canMoveDeployment, FINISHED_STATUSES, RUNNING_STATUSES, type DeploymentKind, type DeploymentStatus } from '../domain/deployments.ts';
import { acceptsDeployments } from '../domain/projects.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import { createOnceInProject } from './createOnce.ts';
import { actorOf, type EventLog } from './eventLog.ts';
import type { ProjectService } from './projects.ts';
import type { ConfigurationService } from './configurations.ts';
import type { EnvironmentService } from './environments.ts';
import type { CreateDeploymentBody, RedeployBody, UpdateDeploymentBody } from '../schemas/deployments.ts';
import type { ReviewBody, RollbackBody } from '../schemas/environments.ts';
import { ProjectRecordService, ProjectRecords } from './accountRecords.ts';
export type { DeploymentDoc } from '../repositories/deployments.ts';
export type { DeploymentReviewDoc } from '../repositories/deploymentReviews.ts';

/** Deployments read for an activity summary: a month of a very busy project (over 300 a day). */
const ACTIVITY_LIMIT = 10_000;

/** Who moves a deployment out of `waiting` by itself (docs/product.md §9), as the audit log names it. */
const SCHEDULER: Actor = { type: 'system', id: 'scheduler' };

/** A decision whose holder has not made its move after this long is made by whoever finds it (the holder died). */
const DECISION_REPAIR_MS = 30_000;

/** How many due deployments one scheduler pass moves. */
const RELEASE_BATCH = 100;

export interface DeploymentServiceDeps extends Pick<Repositories, 'deployments' | 'deploymentReviews' | 'deploymentClaims'> {
  eventLog: EventLog;
  /** Finds the project for the principal (404 outside its reach). */
  projects: ProjectService;
  /** The target environment's rules (docs/product.md §9). */
  environments: EnvironmentService;
  /** The variables released to a running deployment. */
  configurations: ConfigurationService;
  /** Creation times, wait timers and freeze windows are judged by it. */
  clock: Clock;
}

/** What a new deployment is made of, whichever request makes it. */
interface DeploymentSpec {
  environment: string;
  branch: string;
  commit_sha: string | null;
  kind: DeploymentKind;
  source_deployment_id: string | null;
  override_freeze?: boolean | undefined;
  reason?: string | undefined;
}

/** Whether a principal has the admin scope (a user's capped by the role). */
const isAdmin = (principal: Principal) => principal.scopes.has('admin');

/** How long a serial slot's holder may take to move after taking it before the slot counts as left behind. */
const SLOT_MOVE_GRACE_MS = 30_000;

export class DeploymentService extends ProjectRecordService<DeploymentServiceDeps, DeploymentDoc, DeploymentFilter, 'deployment'> {
  protected readonly records = new ProjectRecords(this.deps.deployments, 'deployment', this.deps.projects);

  /**
   * 201 queued (or waiting, docs/product.md §9); the project must be visible (else 404) and active (else
   * 409 project_not_active), and the environment's rules must admit it. `id` is the id reserved for
   * this request (Idempotency-Key): a deployment that already has it was made by an earlier run of the
   * request and is returned as it is, whatever the project's status now.
   */
  async create(principal: Principal, projectId: string, input: CreateDeploymentBody, id?: string): Promise<DeploymentDoc> {
    authorize(principal, 'create', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    const spec: DeploymentSpec = { environment: input.environment, branch: input.branch, commit_sha: input.commit_sha ?? null, kind: 'deploy', source_deployment_id: null, override_freeze: input.override_freeze, reason: input.reason };
    return await this.#createOnce(principal, project, spec, id);
  }

  /** docs/product.md §9: the same branch and commit again, to its environment (`redeploy`) or another (`promote`). */
  async redeploy(principal: Principal, projectId: string, sourceId: string, input: RedeployBody, id?: string): Promise<DeploymentDoc> {
    authorize(principal, 'create', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    const source = await this.records.find(project, sourceId);
    const environment = input.environment ?? source.environment;
    const kind = environment === source.environment ? 'redeploy' : 'promote';
    const spec: DeploymentSpec = { environment, branch: source.branch, commit_sha: source.commit_sha, kind, source_deployment_id: source._id, override_freeze: input.override_freeze, reason: input.reason };
    return await this.#createOnce(principal, project, spec, id);
  }

  /**
   * docs/product.md §9: redeploys the deployment that succeeded before the current one (or the one
   * named, which must have succeeded in this environment), kind `rollback`.
   */
  async rollback(principal: Principal, projectId: string, environment: string, input: RollbackBody, id?: string): Promise<DeploymentDoc> {
    authorize(principal, 'create', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    const source = input.deployment_id ? await this.records.find(project, input.deployment_id) : await this.#previousSuccess(project, environment);
    if (source.environment !== environment || !['succeeded', 'superseded'].includes(source.status))
      throw conflict(`${source._id} never succeeded in the ${environment} environment; only a deployment that did can be rolled back to.`);
    const spec: DeploymentSpec = { environment, branch: source.branch, commit_sha: source.commit_sha, kind: 'rollback', source_deployment_id: source._id, override_freeze: input.override_freeze, reason: input.reason };
    return await this.#createOnce(principal, project, spec, id);
  }

  /**
   * What a rollback of `environment` would do, for a confirmation: what is live now and what it would
   * go back to (the same rule as `rollback` without a deployment named).
   */
  async rollbackPlan(principal: Principal, projectId: string, environment: string): Promise<{ current: DeploymentDoc; target: DeploymentDoc }> {
    authorize(principal, 'read', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    const target = await this.#previousSuccess(project, environment);
    const current = await this.deps.deployments.newestIn(project._id, environment, ['succeeded']);
    if (!current) throw conflict(`Nothing is live in the ${environment} environment; there is nothing to roll back.`);
    return { current, target };
  }

  async #previousSuccess(project: ProjectDoc, environment: string): Promise<DeploymentDoc> {
    const current = await this.deps.deployments.newestIn(project._id, environment, ['succeeded']);
    if (!current) throw conflict(`Nothing is live in the ${environment} environment; there is nothing to roll back.`);
    const previous = await this.deps.deployments.newestIn(project._id, environment, ['superseded'], current._id);
    if (!previous) throw conflict(`No deployment succeeded in the ${environment} environment before ${current._id}.`);
    return previous;
  }

  async #createOnce(principal: Principal, project: ProjectDoc, spec: DeploymentSpec, id: string | undefined): Promise<DeploymentDoc> {
    // Where it goes, whatever the path (create, redeploy, promote, rollback): an exchanged CI token may deploy to its policy's environments only.
    authorize(principal, 'create', 'deployment', { account_id: project.account_id, project_id: project._id, environment: spec.environment });
    const deployments = this.deps.deployments;
    return await createOnceInProject(project, id, (...at) => deployments.findInProject(...at), () => this.#insert(principal, project, spec, id));
  }

  async #insert(principal: Principal, project: ProjectDoc, spec: DeploymentSpec, id: string | undefined): Promise<DeploymentDoc> {
    if (!acceptsDeployments(project.status)) throw projectNotActive(`The project is ${project.status}; it accepts no new deployments.`);
    const environment = await this.deps.environments.ensure(principal, project, spec.environment);
    const now = this.deps.clock.date();
    const override = this.#admit(principal, environment, spec, now);
    const { required_approvals, wait_timer_seconds } = environment.protection;
    const waiting = required_approvals > 0 || wait_timer_seconds > 0;
    const doc: DeploymentDoc = {
      _id: id ?? newId('deployment', now.getTime()),
      account_id: project.account_id,
      project_id: project._id,
      environment: spec.environment,
      branch: spec.branch,
      commit_sha: spec.commit_sha,
      status: waiting ? 'waiting' : 'queued',
      status_message: null,
      url: null,
      created_by: actorOf(principal),
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
      kind: spec.kind,
      source_deployment_id: spec.source_deployment_id,
      // The rules it waits under are the ones it was created under.
      ...(waiting ? { required_approvals, wait_timer_seconds, due_at: required_approvals === 0 ? new Date(now.getTime() + wait_timer_seconds * 1000) : null } : {}),
    };
    await this.deps.deployments.insert(doc);
    const data = {
      deployment_id: doc._id,
      environment: doc.environment,
      branch: doc.branch,
      commit_sha: doc.commit_sha,
      kind: doc.kind,
      source_deployment_id: doc.source_deployment_id,
      status: doc.status,
      ...(override ? { override_freeze: override } : {}),
    };
    await this.deps.eventLog.record('deployment.created', principal, doc, data, now);
    if (waiting) await this.deps.eventLog.record('deployment.waiting', principal, doc, { deployment_id: doc._id, environment: doc.environment, required_approvals, wait_timer_seconds }, now);
    if (environment.cancel_superseded) await this.#cancelOlder(doc, actorOf(principal));
    return doc;
  }

  /**
   * The environment's rules for a new deployment: its branch (409 branch_not_allowed), its lock (409
   * environment_locked), its freeze windows (409 environment_frozen, unless an admin overrides with a
   * reason: what is recorded of it is returned).
   */
  #admit(principal: Principal, environment: EnvironmentDoc, spec: DeploymentSpec, now: Date): Record<string, unknown> | null {
    const patterns = environment.protection.branch_patterns;
    if (!branchAllowed(patterns, spec.branch))
      throw environmentRefusal('branch_not_allowed', `The ${environment.name} environment admits only branches matching ${patterns!.join(', ') || '(none)'}; ${spec.branch} is not one.`);
    if (environment.lock) throw environmentRefusal('environment_locked', `The ${environment.name} environment is locked: ${environment.lock.reason}`);
    const frozen = environment.freeze_windows.find((w) => w.starts_at <= now && now < w.ends_at);
    if (!frozen) return null;
    const until = `The ${environment.name} environment is frozen until ${frozen.ends_at.toISOString()}: ${frozen.reason}`;
    if (!spec.override_freeze) throw environmentRefusal('environment_frozen', until);
    if (!isAdmin(principal)) throw insufficientScope('admin');
    if (spec.reason === undefined) throw environmentRefusal('environment_frozen', `${until}. An override needs a reason.`);
    return { reason: spec.reason ?? null, window: { starts_at: frozen.starts_at.toISOString(), ends_at: frozen.ends_at.toISOString(), reason: frozen.reason } };
  }

  /** `cancel_superseded`: the older waiting and queued deployments of the environment are canceled. */
  async #cancelOlder(newer: DeploymentDoc, actor: Actor): Promise<void> {
    const older = (await this.deps.deployments.inEnvironment(newer.project_id, newer.environment, ['waiting', 'queued'])).filter((d) => d._id < newer._id);
    for (const doc of older) {
      if (doc.status === 'waiting' && !(await this.deps.deploymentClaims.decide(doc, 'canceled', this.deps.clock.date()))) continue;
      const now = this.deps.clock.date();
      const moved = await this.deps.deployments.transition(doc._id, doc.status, { status: 'canceled', status_message: `Superseded by ${newer._id}.`, finished_at: now, updated_at: now, due_at: null });
      if (moved) await this.#statusChanged(moved, doc.status, actor, { superseded_by: newer._id });
    }
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
   * newer one already succeeded). In a serial environment a move into building or deploying needs the
   * environment's one slot (409 environment_busy).
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
      const now = this.deps.clock.date();
      const set: Partial<DeploymentDoc> = { updated_at: now };
      if (input.status_message !== undefined) set.status_message = input.status_message;
      if (input.url !== undefined) set.url = input.url;
      const moves = to !== current.status;
      if (moves) {
        set.status = to;
        if (to === 'building') set.started_at = now;
        if (FINISHED_STATUSES.has(to)) set.finished_at = now;
        if (current.status === 'waiting') {
          set.due_at = null;
          if (!(await this.deps.deploymentClaims.decide(current, 'canceled', now))) throw invalidTransition('The deployment has just left waiting; read it again.');
        }
      }
      const slot = moves && RUNNING_STATUSES.has(to) ? await this.#takeSlot(project, current, now) : false;
      const updated = await this.deps.deployments.transition(current._id, current.status, set);
      if (!updated) {
        if (slot && !RUNNING_STATUSES.has(current.status)) await this.deps.deploymentClaims.releaseSlot(project._id, current.environment, current._id);
        continue;
      }
      if (moves && RUNNING_STATUSES.has(current.status) && !RUNNING_STATUSES.has(to)) await this.deps.deploymentClaims.releaseSlot(project._id, current.environment, current._id);
      const actor = actorOf(principal);
      if (moves) await this.#statusChanged(updated, current.status, actor);
      if (to === 'succeeded' && current.status !== 'succeeded') return await this.#supersede(updated, now, actor);
      return updated;
    }
    throw conflict('The deployment is being changed concurrently; retry.');
  }

  /**
   * docs/product.md §9 `serial`: the environment's one slot for building or deploying, a claim that one
   * deployment holds until it leaves them. A slot left by a deployment that finished without giving it
   * back (its instance died) is freed once. True when taken; 409 environment_busy when another holds it.
   */
  async #takeSlot(project: ProjectDoc, deployment: DeploymentDoc, now: Date): Promise<boolean> {
    const environment = await this.deps.environments.rulesOf(project, deployment.environment);
    if (!environment?.serial) return false;
    const claims = this.deps.deploymentClaims;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await claims.takeSlot(project, deployment.environment, deployment._id, now)) return true;
      const holder = await claims.slotHolder(project._id, deployment.environment);
      if (holder === null) continue;
      const held = await this.deps.deployments.findInProject(project.account_id, project._id, holder.deploymentId);
      if (held && RUNNING_STATUSES.has(held.status))
        throw environmentRefusal('environment_busy', `The ${deployment.environment} environment is serial and ${held._id} is ${held.status} there.`);
      // Not running yet is not stale: the holder took the slot and is about to move (or gives it back
      // if its move fails). Stale is a holder gone or finished, or one that never moved for longer than
      // any move takes (its instance died between the two writes).
      const stale = !held || !ACTIVE_STATUSES.has(held.status) || now.getTime() - holder.since.getTime() > SLOT_MOVE_GRACE_MS;
      if (!stale) break;
      await claims.freeStaleSlot(project, deployment.environment, holder.deploymentId, now);
    }
    throw environmentRefusal('environment_busy', `The ${deployment.environment} environment is serial and another deployment is starting there.`);
  }

  /**
   * Without transactions, each success first marks itself, then supersedes older successes and checks
   * for a newer one: of two concurrent successes at least one sees the other, so exactly the newest
   * stays `succeeded`.
   */
  async #supersede(deployment: DeploymentDoc, now: Date, actor: Actor): Promise<DeploymentDoc> {
    for (const older of await this.deps.deployments.supersedeOlder(deployment.project_id, deployment.environment, deployment._id, now))
      await this.#statusChanged(older, 'succeeded', actor, { superseded_by: deployment._id });
    if (await this.deps.deployments.hasNewerSuccess(deployment.project_id, deployment.environment, deployment._id)) {
      const superseded = await this.deps.deployments.transition(deployment._id, 'succeeded', { status: 'superseded', updated_at: this.deps.clock.date() });
      if (superseded) {
        await this.#statusChanged(superseded, 'succeeded', actor);
        return superseded;
      }
    }
    return deployment;
  }

  async #statusChanged(deployment: DeploymentDoc, from: DeploymentStatus, actor: Actor, extra: Record<string, unknown> = {}): Promise<void> {
    const data = { deployment_id: deployment._id, environment: deployment.environment, from, to: deployment.status, ...extra };
    await this.deps.eventLog.record('deployment.status_changed', actor, deployment, data, this.deps.clock.date());
  }

  // Reviews (docs/product.md §9).

  /**
   * A person's review of a waiting deployment: a reviewer of the environment (its `reviewers`, or any
   * admin or owner), once (a second review → 409 conflict); the creator may not approve under
   * `prevent_self_review`. One reject ends the deployment as `rejected`; the approval that meets the
   * rule starts the wait timer, and the service queues the deployment when it has run out.
   */
  async review(principal: Principal, projectId: string, id: string, input: ReviewBody): Promise<DeploymentReviewDoc> {
    authorize(principal, 'review', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    if (project.status === 'archived') throw projectNotActive('The project is archived; unarchive it before changing its deployments.');
    const deployment = await this.records.find(project, id);
    authorize(principal, 'review', 'deployment', deployment);
    if (deployment.status !== 'waiting') throw invalidTransition(`The deployment is ${deployment.status}; only a waiting deployment is reviewed.`);
    const environment = await this.deps.environments.rulesOf(project, deployment.environment);
    const reviewers = environment?.protection.reviewers ?? [];
    const isReviewer = reviewers.length === 0 ? principal.role === 'admin' || principal.role === 'owner' : reviewers.includes(principal.id) || (principal.role !== undefined && reviewers.includes(principal.role));
    if (!isReviewer) throw forbidden(`You are not a reviewer of the ${deployment.environment} environment.`);
    const self = deployment.created_by.type === 'user' && deployment.created_by.id === principal.id;
    if (input.decision === 'approve' && self && environment?.protection.prevent_self_review)
      throw forbidden(`The ${deployment.environment} environment does not let a deployment's creator approve it.`);
    const now = this.deps.clock.date();
    const review: DeploymentReviewDoc = {
      _id: reviewKey(deployment._id, principal.id),
      review_id: newId('review', now.getTime()),
      account_id: deployment.account_id,
      project_id: deployment.project_id,
      deployment_id: deployment._id,
      reviewer: actorOf(principal),
      decision: input.decision,
      comment: input.comment ?? null,
      created_at: now,
    };
    if (!(await this.deps.deploymentReviews.claim(review))) throw conflict('You have already reviewed this deployment.');
    await this.deps.eventLog.record('deployment.reviewed', principal, deployment, { deployment_id: deployment._id, environment: deployment.environment, review_id: review.review_id, decision: review.decision }, now);
    if (input.decision === 'reject') await this.#reject(deployment, principal, now);
    else await this.#approvalCounted(deployment, now);
    return review;
  }

  async listReviews(principal: Principal, projectId: string, id: string, page: PageRequest): Promise<PageResult<DeploymentReviewDoc>> {
    const deployment = await this.records.get(principal, projectId, id);
    return await this.deps.deploymentReviews.page(deployment._id, page);
  }

  async #reject(deployment: DeploymentDoc, principal: Principal, now: Date): Promise<void> {
    if (!(await this.deps.deploymentClaims.decide(deployment, 'rejected', now))) return;
    const set = { status: 'rejected' as const, status_message: `Rejected by ${principal.id}.`, finished_at: now, updated_at: now, due_at: null };
    const moved = await this.deps.deployments.transition(deployment._id, 'waiting', set);
    if (!moved) return;
    await this.deps.eventLog.record('deployment.rejected', principal, moved, { deployment_id: moved._id, environment: moved.environment }, now);
    await this.#statusChanged(moved, 'waiting', actorOf(principal));
  }

  /** After an approval: when the approvals are met, once, the wait timer starts (and with none, it is queued now). */
  async #approvalCounted(deployment: DeploymentDoc, now: Date): Promise<void> {
    const required = deployment.required_approvals ?? 0;
    if ((await this.deps.deploymentReviews.countApprovals(deployment._id)) < required) return;
    if (!(await this.deps.deploymentClaims.approved(deployment, now))) return;
    const dueAt = new Date(now.getTime() + (deployment.wait_timer_seconds ?? 0) * 1000);
    const updated = await this.deps.deployments.transition(deployment._id, 'waiting', { due_at: dueAt, updated_at: now });
    if (!updated) return;
    await this.deps.eventLog.record('deployment.approved', SCHEDULER, updated, { deployment_id: updated._id, environment: updated.environment, approvals: required, queued_at: dueAt.toISOString() }, now);
    if (dueAt <= now) await this.#release(updated, now);
  }

  /**
   * The scheduler's pass (every instance runs it, src/services/deploymentScheduler.ts): each waiting
   * deployment whose approvals are met and whose wait timer ran out by the server's clock moves to
   * `queued`, exactly once across instances (the `decided` claim). Returns how many this pass moved.
   */
  async releaseDue(): Promise<number> {
    const now = this.deps.clock.date();
    let moved = 0;
    for (const deployment of await this.deps.deployments.dueWaiting(now, RELEASE_BATCH)) if (await this.#release(deployment, now)) moved++;
    return moved;
  }

  async #release(deployment: DeploymentDoc, now: Date): Promise<boolean> {
    const claims = this.deps.deploymentClaims;
    if (await claims.decide(deployment, 'queued', now)) {
      const moved = await this.deps.deployments.transition(deployment._id, 'waiting', { status: 'queued', due_at: null, updated_at: now });
      if (moved) await this.#statusChanged(moved, 'waiting', SCHEDULER);
      return moved !== null;
    }
    // Decided by someone who did not make the move (its instance died between the two): made now.
    const decision = await claims.decision(deployment._id);
    if (!decision?.decision || now.getTime() - decision.claimed_at.getTime() < DECISION_REPAIR_MS) return false;
    const finished = decision.decision !== 'queued';
    const set = { status: decision.decision, due_at: null, updated_at: now, ...(finished ? { finished_at: now } : {}) };
    const moved = await this.deps.deployments.transition(deployment._id, 'waiting', set);
    if (moved) await this.#statusChanged(moved, 'waiting', SCHEDULER, { repaired: true });
    return moved !== null;
  }

  // The configuration a deployment runs with (docs/product.md §9).

  /**
   * The variables of the deployment's environment, secret values in clear, to the credential that
   * created the deployment or an admin (else 403 forbidden), while it is queued, building or deploying
   * (else 409 deployment_not_active). Each release is recorded (`configuration.released`, keys only).
   */
  async configuration(principal: Principal, projectId: string, id: string): Promise<{ deployment: DeploymentDoc; variables: { key: string; value: string; secret: boolean }[] }> {
    const deployment = await this.records.get(principal, projectId, id);
    const creator = deployment.created_by.type === principal.kind && deployment.created_by.id === principal.id;
    if (!creator && !isAdmin(principal)) throw forbidden('Only the credential that created the deployment, or an admin, receives its configuration.');
    if (!ACTIVE_STATUSES.has(deployment.status))
      throw environmentRefusal('deployment_not_active', `The deployment is ${deployment.status}; its configuration is released only while it is queued, building or deploying.`);
    const variables = await this.deps.configurations.releasedFor({ _id: deployment.project_id, account_id: deployment.account_id }, deployment.environment);
    await this.deps.eventLog.record(
      'configuration.released',
      principal,
      deployment,
      { deployment_id: deployment._id, environment: deployment.environment, keys: variables.map((v) => v.key) },
      this.deps.clock.date(),
    );
    return { deployment, variables };
  }
}


