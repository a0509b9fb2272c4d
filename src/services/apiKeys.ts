import type { Clock } from '../lib/clock.ts';
import type { Changes } from '../lib/changes.ts';
import { SCOPE_ORDER, type Principal, type Scope } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { conflict } from '../errors.ts';
import { apiKeyHints, generateApiKey, hashApiKey } from '../lib/apiKeyFormat.ts';
import { newId } from '../lib/ids.ts';
import { createOnce } from './createOnce.ts';
import type { ApiKeyDoc, ApiKeyStatus } from '../repositories/apiKeys.ts';
import type { Repositories } from '../repositories/index.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import type { CreateApiKeyBody, RotateApiKeyBody } from '../schemas/apiKeys.ts';
import { actorOf, type EventLog } from './eventLog.ts';
import type { LockService } from './locking.ts';
import type { QuotaService } from './quotas.ts';
import type { ProjectService } from './projects.ts';
import { ProjectRecordService, ProjectRecords } from './accountRecords.ts';
export type { ApiKeyDoc } from '../repositories/apiKeys.ts';

/** The key with its plaintext secret: returned by create and rotate, and never again. */
export interface IssuedApiKey {
  apiKey: ApiKeyDoc;
  key: string;
}

/** A key an earlier run of the same request created: its secret is not available any more. */
export interface RecoveredApiKey {
  apiKey: ApiKeyDoc;
  key: null;
}

export interface ApiKeyServiceDeps extends Pick<Repositories, 'apiKeys' | 'apiKeySecrets' | 'apiKeyUsage'> {
  eventLog: EventLog;
  locks: LockService;
  /** Tells this process's key cache at once when a key is revoked or rotated. */
  changes: Changes;
  /** Finds the project for the principal (404 outside its reach, 409 when archived for a change). */
  projects: ProjectService;
  quotas: QuotaService;
  /** Expiries and grace periods are measured by it (src/lib/clock.ts). */
  clock: Clock;
}

/** Which keys a list shows: all, or those of one status. */
export interface ApiKeyFilter {
  status?: ApiKeyStatus | undefined;
}

/** Rotations and revocations of one key run one at a time (two concurrent rotations would each retire the other's new secret). */
const keyLock = (id: string) => `api-key:${id}`;

/** What the audit log says of a key: its id, name and public prefix, never the secret. */
function eventData(apiKey: ApiKeyDoc) {
  return { api_key_id: apiKey._id, name: apiKey.name, prefix: apiKey.prefix };
}

function normaliseScopes(scopes: readonly string[]): Scope[] {
  return SCOPE_ORDER.filter((s) => scopes.includes(s));
}

/**
 * A project's API keys (docs/product.md §2, §3, §5). Every method finds the project for the principal first
 * (404 outside its account); issuing a secret (create, rotate) needs a project that is not archived
 * (409 project_not_active), revoking never does. Keys are managed by users and clients, never by an
 * API key (403 forbidden).
 */
export class ApiKeyService extends ProjectRecordService<ApiKeyServiceDeps, ApiKeyDoc, ApiKeyFilter, 'api_key'> {
  /**
   * `id` is the id reserved for this request (Idempotency-Key): a key that already has it was made by
   * an earlier run of the request and is the answer, whatever the project's status now, but its secret
   * was shown (or lost) then and is never available again (rotate the key for a new one).
   */
  async create(principal: Principal, projectId: string, input: CreateApiKeyBody): Promise<IssuedApiKey>;
  async create(principal: Principal, projectId: string, input: CreateApiKeyBody, id: string | undefined): Promise<IssuedApiKey | RecoveredApiKey>;
  async create(principal: Principal, projectId: string, input: CreateApiKeyBody, id?: string): Promise<IssuedApiKey | RecoveredApiKey> {
    authorize(principal, 'create', 'api_key');
    const madeAlready = id ? async () => (await this.deps.apiKeys.findInProject(principal.accountId, projectId, id)) !== null : undefined;
    const project = await this.deps.projects.getWritable(principal, projectId, madeAlready);
    const keyId = id ?? newId('apiKey');
    const { doc, created } = await createOnce<IssuedApiKey | RecoveredApiKey>(
      id,
      async (existing) => {
        const apiKey = await this.deps.apiKeys.findInProject(project.account_id, project._id, existing);
        return apiKey ? { apiKey, key: null } : null;
      },
      () => this.deps.quotas.withSlot(principal, 'api_keys', keyId, () => this.#insert(principal, project, input, keyId)),
    );
    return created ? doc : { apiKey: doc.apiKey, key: null };
  }

  async #insert(principal: Principal, project: ProjectDoc, input: CreateApiKeyBody, id: string): Promise<IssuedApiKey> {
    const key = generateApiKey();
    const now = this.deps.clock.date();
    const apiKey: ApiKeyDoc = {
      _id: id,
      account_id: project.account_id,
      project_id: project._id,
      name: input.name,
      scopes: normaliseScopes(input.scopes),
      ...apiKeyHints(key),
      status: 'active',
      created_at: now,
      updated_at: now,
      created_by: actorOf(principal),
      last_used_at: null,
      expires_at: input.expires_at ? new Date(input.expires_at) : null,
      rotated_at: null,
      revoked_at: null,
    };
    await this.deps.apiKeys.insert(apiKey);
    try {
      await this.deps.apiKeySecrets.insert({ _id: hashApiKey(key), key_id: apiKey._id, expires_at: null, created_at: now });
    } catch (err) {
      // No transactions: undo the half-made key so no secretless key is left behind.
      await this.deps.apiKeys.deleteById(apiKey._id).catch(() => undefined);
      throw err;
    }
    await this.deps.eventLog.record('api_key.created', principal, apiKey, { ...eventData(apiKey), scopes: apiKey.scopes, expires_at: apiKey.expires_at }, now);
    return { apiKey, key };
  }

  /** Each with its last use, which is kept apart from the key (written at most once a minute per key). */
  async #withUsage(docs: ApiKeyDoc[]): Promise<ApiKeyDoc[]> {
    const used = await this.deps.apiKeyUsage.lastUsed(docs.map((d) => d._id));
    return docs.map((d) => ({ ...d, last_used_at: used.get(d._id) ?? null }));
  }

  /** `list`: oldest first, revoked keys included unless `filter.status` says otherwise. */
  protected readonly records = new ProjectRecords(this.deps.apiKeys, 'api_key', this.deps.projects, (docs) => this.#withUsage(docs));

  /**
   * Issues a new secret for the same key id. The previous secret keeps working for
   * `grace_period_seconds` (0 = stops now); any older secret still in a grace period never gets longer.
   * Revoked or expired keys cannot be rotated (409 `conflict`).
   */
  async rotate(principal: Principal, projectId: string, id: string, input: RotateApiKeyBody): Promise<IssuedApiKey> {
    authorize(principal, 'rotate', 'api_key');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const grace = input.grace_period_seconds;
    // 404 before anything else, so no lease is ever taken on an id from another account.
    await this.records.find(project, id);
    const issued = await this.deps.locks.run(keyLock(id), async () => {
      const current = await this.records.find(project, id);
      const now = this.deps.clock.date();
      if (current.status !== 'active') throw conflict('A revoked API key cannot be rotated.');
      if (current.expires_at && current.expires_at <= now) throw conflict('An expired API key cannot be rotated.');

      const key = generateApiKey();
      const hash = hashApiKey(key);
      // The new secret works before the old one is retired, so there is no moment with neither.
      await this.deps.apiKeySecrets.insert({ _id: hash, key_id: current._id, expires_at: null, created_at: now });
      const rotated = await this.deps.apiKeys.recordRotation(current._id, apiKeyHints(key), now);
      if (!rotated) {
        await this.deps.apiKeySecrets.deleteByHash(hash);
        throw conflict('A revoked API key cannot be rotated.');
      }
      await this.deps.apiKeySecrets.retireOthers(current._id, hash, grace > 0 ? new Date(now.getTime() + grace * 1000) : null);
      return { apiKey: { ...rotated, last_used_at: current.last_used_at }, key, at: now };
    });
    this.deps.changes.emit('apiKeyChanged', id);
    await this.deps.eventLog.record('api_key.rotated', principal, issued.apiKey, { ...eventData(issued.apiKey), grace_period_seconds: grace }, issued.at);
    return { apiKey: issued.apiKey, key: issued.key };
  }

  /**
   * Revokes the key and deletes its secrets. Revoking a revoked key returns it unchanged. Allowed on an
   * archived project too: removing access is never blocked.
   */
  async revoke(principal: Principal, projectId: string, id: string): Promise<ApiKeyDoc> {
    authorize(principal, 'revoke', 'api_key');
    const project = await this.deps.projects.get(principal, projectId);
    const existing = await this.records.find(project, id);
    const revoked = await this.#revoke(principal, project, id, {});
    return revoked ? { ...revoked, last_used_at: existing.last_used_at } : await this.records.find(project, id);
  }

  /**
   * For project deletion (after the project itself is gone, so it is passed as it was): revokes every
   * active key of the project as `principal`. Returns how many.
   */
  async revokeAllForProject(principal: Principal, project: ProjectDoc): Promise<number> {
    let count = 0;
    for (const key of await this.deps.apiKeys.activeForProject(project.account_id, project._id)) {
      if (await this.#revoke(principal, project, key._id, { reason: 'project_deleted' })) count++;
    }
    // Also the secrets of keys revoked earlier, in case a crash left any behind.
    await this.deps.apiKeySecrets.deleteForKeys(await this.deps.apiKeys.idsForProject(project.account_id, project._id));
    return count;
  }

  async #revoke(principal: Principal, project: ProjectDoc, id: string, extra: Record<string, unknown>): Promise<ApiKeyDoc | null> {
    const now = this.deps.clock.date();
    const revoked = await this.deps.locks.run(keyLock(id), async () => {
      const doc = await this.deps.apiKeys.revoke(project.account_id, project._id, id, now);
      // Secrets go too: even a stale "active" read somewhere finds nothing to authenticate with.
      if (doc) await this.deps.apiKeySecrets.deleteForKeys([doc._id]);
      return doc;
    });
    if (!revoked) return null;
    this.deps.changes.emit('apiKeyChanged', revoked._id);
    await this.deps.quotas.release('api_keys', revoked._id);
    await this.deps.eventLog.record('api_key.revoked', principal, revoked, { ...eventData(revoked), ...extra }, now);
    return revoked;
  }
}
