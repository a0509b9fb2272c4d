import { authorize } from '../domain/policy.ts';
import { SCOPE_ORDER, type Principal } from '../domain/principal.ts';
import { validationFailed } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { Repositories } from '../repositories/index.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import { revokedTrustPolicyKey } from '../repositories/revokedGrants.ts';
import type { TrustPolicyDoc } from '../repositories/trustPolicies.ts';
import type { CreateTrustPolicyBody } from '../schemas/trustPolicies.ts';
import { ProjectRecordService, ProjectRecords } from './accountRecords.ts';
import { createOnceInProject } from './createOnce.ts';
import { actorOf, type EventLog } from './eventLog.ts';
import type { ProjectService } from './projects.ts';
export type { TrustPolicyDoc } from '../repositories/trustPolicies.ts';

export interface TrustPolicyServiceDeps extends Pick<Repositories, 'trustPolicies' | 'revokedGrants'> {
  eventLog: EventLog;
  projects: ProjectService;
  clock: Clock;
  /** The deployment's base URL: a policy's audience unless it names another. */
  baseUrl: string;
  /** FEDERATION_ALLOW_LOOPBACK: an issuer on loopback (and over http there) is accepted. */
  allowLoopback: boolean;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** What the audit log says of a policy: everything but who made it (the event says so). */
function eventData(doc: TrustPolicyDoc) {
  return { trust_policy_id: doc._id, name: doc.name, issuer: doc.issuer, audience: doc.audience, claims: Object.fromEntries(doc.claims.map((c) => [c.name, c.value])), scopes: doc.scopes, environments: doc.environments };
}

/**
 * A project's trust policies (docs/product.md §13): which CI identities may exchange their tokens for
 * one acting as the project. Managed with the admin scope by the account's people and apps, never by a
 * project's own credentials. Deleting one ends every token exchanged through it.
 */
export class TrustPolicyService extends ProjectRecordService<TrustPolicyServiceDeps, TrustPolicyDoc, object, 'trust_policy'> {
  protected readonly records = new ProjectRecords(this.deps.trustPolicies, 'trust_policy', this.deps.projects);

  async create(principal: Principal, projectId: string, input: CreateTrustPolicyBody, id?: string): Promise<TrustPolicyDoc> {
    authorize(principal, 'create', 'trust_policy');
    const project = await this.deps.projects.getWritable(principal, projectId);
    this.#assertIssuer(input.issuer);
    return await createOnceInProject(project, id, (...at) => this.deps.trustPolicies.findInProject(...at), () => this.#insert(principal, project, input, id));
  }

  async #insert(principal: Principal, project: ProjectDoc, input: CreateTrustPolicyBody, id: string | undefined): Promise<TrustPolicyDoc> {
    const now = this.deps.clock.date();
    const doc: TrustPolicyDoc = {
      _id: id ?? newId('trustPolicy', now.getTime()),
      account_id: project.account_id,
      project_id: project._id,
      name: input.name,
      issuer: input.issuer,
      audience: input.audience ?? this.deps.baseUrl,
      claims: Object.entries(input.claims).map(([name, value]) => ({ name, value })),
      scopes: SCOPE_ORDER.filter((s) => input.scopes.includes(s as 'read' | 'write')),
      environments: input.environments ? [...new Set(input.environments)] : null,
      max_ttl_seconds: input.max_ttl_seconds,
      created_at: now,
      created_by: actorOf(principal),
    };
    await this.deps.trustPolicies.insert(doc);
    await this.deps.eventLog.record('trust_policy.created', principal, doc, eventData(doc), now);
    return doc;
  }

  /** Deletes the policy; tokens exchanged through it stop working (at once here, within the revocation refresh elsewhere). */
  async delete(principal: Principal, projectId: string, id: string): Promise<TrustPolicyDoc> {
    authorize(principal, 'delete', 'trust_policy');
    const project = await this.deps.projects.get(principal, projectId);
    await this.records.find(project, id);
    const deleted = await this.deps.trustPolicies.delete(project.account_id, project._id, id);
    if (!deleted) return await this.records.find(project, id);
    const now = this.deps.clock.date();
    await this.deps.revokedGrants.add(revokedTrustPolicyKey(deleted._id), now);
    await this.deps.eventLog.record('trust_policy.deleted', principal, deleted, eventData(deleted), now);
    return deleted;
  }

  /** For project deletion: its policies go, and every token exchanged through them ends. */
  async deleteAllForProject(project: ProjectDoc): Promise<void> {
    for (const id of await this.deps.trustPolicies.deleteAllForProject(project.account_id, project._id)) await this.deps.revokedGrants.add(revokedTrustPolicyKey(id));
  }

  /** https; http only on loopback, and a loopback issuer at all only when the deployment allows it (422 on `issuer`). */
  #assertIssuer(issuer: string): void {
    const url = new URL(issuer);
    const loopback = LOOPBACK_HOSTS.has(url.hostname) || url.hostname.startsWith('127.');
    if (loopback && !this.deps.allowLoopback) throw validationFailed([{ field: 'issuer', message: 'must not be a loopback address' }]);
    if (url.protocol === 'http:' && !loopback) throw validationFailed([{ field: 'issuer', message: 'must be an https URL (http only on loopback, when the deployment allows it)' }]);
  }
}
