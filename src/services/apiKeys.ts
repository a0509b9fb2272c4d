import { z } from 'zod';
import type { Changes } from '../lib/changes.ts';
import { SCOPE_ORDER, type Scope } from '../domain/principal.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { apiKeyHints, generateApiKey, hashApiKey } from '../lib/apiKeyFormat.ts';
import { newId } from '../lib/ids.ts';
import { createOnce } from './createOnce.ts';
import type { ApiKeyDoc, ApiKeyRepository, ApiKeyStatus } from '../repositories/apiKeys.ts';
import type { ApiKeySecretRepository } from '../repositories/apiKeySecrets.ts';
import type { ApiKeyUsageRepository } from '../repositories/apiKeyUsage.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { LockRepository } from '../repositories/locks.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { recordEvent, type ServiceContext } from './events.ts';
import { withLock } from './locking.ts';
import { zodDetails } from '../schemas/parse.ts';
import { MAX_GRACE_PERIOD_SECONDS } from '../schemas/apiKeys.ts';


export const CreateApiKeyInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    scopes: z.array(z.enum(['read', 'write', 'admin'])).min(1).max(3),
    expires_at: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .refine((v) => v == null || Date.parse(v) > Date.now(), 'must be in the future'),
  })
  .strict();
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

export const RotateApiKeyInput = z
  .object({
    grace_period_seconds: z.number().int().min(0).max(MAX_GRACE_PERIOD_SECONDS).default(0),
  })
  .strict();
export type RotateApiKeyInput = z.input<typeof RotateApiKeyInput>;

export interface ApiKeyDeps {
  /** Tells this process's key cache at once when a key is revoked or rotated. */
  changes: Changes;
  apiKeys: ApiKeyRepository;
  apiKeySecrets: ApiKeySecretRepository;
  apiKeyUsage: ApiKeyUsageRepository;
  events: EventRepository;
  locks: LockRepository;
}

/** Rotations and revocations of one key run one at a time (two concurrent rotations would each retire the other's new secret). */
const keyLock = (id: string) => `api-key:${id}`;

async function withUsage(deps: Pick<ApiKeyDeps, 'apiKeyUsage'>, docs: ApiKeyDoc[]): Promise<ApiKeyDoc[]> {
  const used = await deps.apiKeyUsage.lastUsed(docs.map((d) => d._id));
  return docs.map((d) => ({ ...d, last_used_at: used.get(d._id) ?? null }));
}

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


function normaliseScopes(scopes: readonly string[]): Scope[] {
  return SCOPE_ORDER.filter((s) => scopes.includes(s));
}

/**
 * Creates a key for `projectId`. The caller has already checked that the project exists in
 * `ctx.accountId` (404 otherwise) and that the actor may manage keys.
 */
export async function createApiKey(deps: ApiKeyDeps, ctx: ServiceContext, projectId: string, input: CreateApiKeyInput): Promise<IssuedApiKey>;
export async function createApiKey(
  deps: ApiKeyDeps,
  ctx: ServiceContext,
  projectId: string,
  input: CreateApiKeyInput,
  reservedId: string | undefined,
): Promise<IssuedApiKey | RecoveredApiKey>;
export async function createApiKey(
  deps: ApiKeyDeps,
  ctx: ServiceContext,
  projectId: string,
  input: CreateApiKeyInput,
  reservedId?: string,
): Promise<IssuedApiKey | RecoveredApiKey> {
  const parsed = CreateApiKeyInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  // An earlier run of the same request (Idempotency-Key) made it already: that key is the answer, but
  // its secret was shown (or lost) then and is never available again (rotate the key for a new one).
  const { doc, created } = await createOnce<IssuedApiKey | RecoveredApiKey>(
    reservedId,
    async (existing) => {
      const apiKey = await deps.apiKeys.findInProject(ctx.accountId, projectId, existing);
      return apiKey ? { apiKey, key: null } : null;
    },
    () => insertApiKey(deps, ctx, projectId, data, reservedId),
  );
  return created ? doc : { apiKey: doc.apiKey, key: null };
}

async function insertApiKey(
  deps: ApiKeyDeps,
  ctx: ServiceContext,
  projectId: string,
  data: z.output<typeof CreateApiKeyInput>,
  reservedId: string | undefined,
): Promise<IssuedApiKey> {
  const key = generateApiKey();
  const now = new Date();
  const apiKey: ApiKeyDoc = {
    _id: reservedId ?? newId('key', now.getTime()),
    account_id: ctx.accountId,
    project_id: projectId,
    name: data.name,
    scopes: normaliseScopes(data.scopes),
    ...apiKeyHints(key),
    status: 'active',
    created_at: now,
    updated_at: now,
    created_by: { type: ctx.actor.type, id: ctx.actor.id },
    last_used_at: null,
    expires_at: data.expires_at ? new Date(data.expires_at) : null,
    rotated_at: null,
    revoked_at: null,
  };
  await deps.apiKeys.insert(apiKey);
  try {
    await deps.apiKeySecrets.insert({ _id: hashApiKey(key), key_id: apiKey._id, expires_at: null, created_at: now });
  } catch (err) {
    // No transactions: undo the half-made key so no secretless key is left behind.
    await deps.apiKeys.deleteById(apiKey._id).catch(() => undefined);
    throw err;
  }
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'api_key.created',
    actor: ctx.actor,
    projectId,
    data: { api_key_id: apiKey._id, name: apiKey.name, scopes: apiKey.scopes, prefix: apiKey.prefix, expires_at: apiKey.expires_at },
    at: now,
  });
  return { apiKey, key };
}

/** Whether the key exists in the project (a request run again finds what it made). */
export async function apiKeyExists(deps: Pick<ApiKeyDeps, 'apiKeys'>, accountId: string, projectId: string, id: string): Promise<boolean> {
  return (await deps.apiKeys.findInProject(accountId, projectId, id)) !== null;
}

export async function getApiKey(deps: Pick<ApiKeyDeps, 'apiKeys' | 'apiKeyUsage'>, accountId: string, projectId: string, id: string): Promise<ApiKeyDoc> {
  const doc = await deps.apiKeys.findInProject(accountId, projectId, id);
  if (!doc) throw notFound('No such API key.');
  return (await withUsage(deps, [doc]))[0]!;
}

export async function listApiKeys(
  deps: Pick<ApiKeyDeps, 'apiKeys' | 'apiKeyUsage'>,
  accountId: string,
  projectId: string,
  page: PageRequest,
  filter: { status?: ApiKeyStatus } = {},
): Promise<PageResult<ApiKeyDoc>> {
  const result = await deps.apiKeys.page(accountId, projectId, filter, page);
  return { items: await withUsage(deps, result.items), total: result.total };
}

/**
 * Issues a new secret for the same key id. The previous secret keeps working for
 * `grace_period_seconds` (0 = stops now); any older secret still in a grace period never gets longer.
 * Revoked or expired keys cannot be rotated (409 `conflict`).
 */
export async function rotateApiKey(
  deps: ApiKeyDeps,
  ctx: ServiceContext,
  projectId: string,
  id: string,
  input: RotateApiKeyInput = {},
): Promise<IssuedApiKey> {
  const parsed = RotateApiKeyInput.safeParse(input ?? {});
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const grace = parsed.data.grace_period_seconds;
  // 404 before anything else, so no lease is ever taken on an id from another account.
  await getApiKey(deps, ctx.accountId, projectId, id);
  const issued = await withLock(deps, keyLock(id), async () => {
    const current = await getApiKey(deps, ctx.accountId, projectId, id);
    const now = new Date();
    if (current.status !== 'active') throw conflict('A revoked API key cannot be rotated.');
    if (current.expires_at && current.expires_at <= now) throw conflict('An expired API key cannot be rotated.');

    const key = generateApiKey();
    const hash = hashApiKey(key);
    // The new secret works before the old one is retired, so there is no moment with neither.
    await deps.apiKeySecrets.insert({ _id: hash, key_id: current._id, expires_at: null, created_at: now });
    const rotated = await deps.apiKeys.recordRotation(current._id, apiKeyHints(key), now);
    if (!rotated) {
      await deps.apiKeySecrets.deleteByHash(hash);
      throw conflict('A revoked API key cannot be rotated.');
    }
    await deps.apiKeySecrets.retireOthers(current._id, hash, grace > 0 ? new Date(now.getTime() + grace * 1000) : null);
    return { apiKey: { ...rotated, last_used_at: current.last_used_at }, key, at: now };
  });
  deps.changes.emit('apiKeyChanged', id);
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'api_key.rotated',
    actor: ctx.actor,
    projectId,
    data: { api_key_id: issued.apiKey._id, name: issued.apiKey.name, prefix: issued.apiKey.prefix, grace_period_seconds: grace },
    at: issued.at,
  });
  return { apiKey: issued.apiKey, key: issued.key };
}

/** Revokes the key and deletes its secrets. Revoking a revoked key returns it unchanged. */
export async function revokeApiKey(deps: ApiKeyDeps, ctx: ServiceContext, projectId: string, id: string): Promise<ApiKeyDoc> {
  const existing = await getApiKey(deps, ctx.accountId, projectId, id);
  const revoked = await revokeLocked(deps, ctx, projectId, id, {});
  return revoked ? { ...revoked, last_used_at: existing.last_used_at } : await getApiKey(deps, ctx.accountId, projectId, id);
}

async function revokeLocked(deps: ApiKeyDeps, ctx: ServiceContext, projectId: string, id: string, extra: Record<string, unknown>): Promise<ApiKeyDoc | null> {
  const now = new Date();
  const revoked = await withLock(deps, keyLock(id), async () => {
    const doc = await deps.apiKeys.revoke(ctx.accountId, projectId, id, now);
    // Secrets go too: even a stale "active" read somewhere finds nothing to authenticate with.
    if (doc) await deps.apiKeySecrets.deleteForKeys([doc._id]);
    return doc;
  });
  if (!revoked) return null;
  deps.changes.emit('apiKeyChanged', revoked._id);
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'api_key.revoked',
    actor: ctx.actor,
    projectId,
    data: { api_key_id: revoked._id, name: revoked.name, prefix: revoked.prefix, ...extra },
    at: now,
  });
  return revoked;
}

/** For project deletion: revokes every active key of the project. Returns how many. */
export async function revokeAllForProject(deps: ApiKeyDeps, ctx: ServiceContext, projectId: string): Promise<number> {
  let count = 0;
  for (const key of await deps.apiKeys.activeForProject(ctx.accountId, projectId)) {
    if (await revokeLocked(deps, ctx, projectId, key._id, { reason: 'project_deleted' })) count++;
  }
  // Also the secrets of keys revoked earlier, in case a crash left any behind.
  await deps.apiKeySecrets.deleteForKeys(await deps.apiKeys.idsForProject(ctx.accountId, projectId));
  return count;
}

/** Never includes a hash or the secret; `expired` is shown for an active key past its `expires_at`. */
export function presentApiKey(doc: ApiKeyDoc, now = new Date()) {
  const status = doc.status === 'active' && doc.expires_at && doc.expires_at <= now ? 'expired' : doc.status;
  return {
    id: doc._id,
    name: doc.name,
    project_id: doc.project_id,
    scopes: doc.scopes,
    prefix: doc.prefix,
    last_four: doc.last_four,
    status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    created_by: { type: doc.created_by.type, id: doc.created_by.id },
    last_used_at: doc.last_used_at?.toISOString() ?? null,
    expires_at: doc.expires_at?.toISOString() ?? null,
    rotated_at: doc.rotated_at?.toISOString() ?? null,
  };
}

/** The create and rotate responses: the key object plus the secret, as `key`, this once. */
export function presentIssuedApiKey(issued: IssuedApiKey | RecoveredApiKey) {
  return { ...presentApiKey(issued.apiKey), key: issued.key };
}
