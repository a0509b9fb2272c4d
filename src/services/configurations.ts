import { z } from 'zod';
import { conflict, notFound, validationFailed } from '../errors.ts';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';
import { newId } from '../lib/ids.ts';
import type { ConfigurationChanges, ConfigurationDoc, ConfigurationRepository } from '../repositories/configurations.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { LockRepository } from '../repositories/locks.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { createOnce } from './createOnce.ts';
import { recordEvent, type ServiceContext } from './events.ts';
import { withLock } from './locking.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import { zodDetails } from '../schemas/parse.ts';
import { ConfigurationKey, MAX_VALUE_BYTES } from '../schemas/configurations.ts';


export const Environment = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lower-case letters, digits or dashes, not starting with a dash');
const ConfigurationValue = z
  .string()
  .max(MAX_VALUE_BYTES, 'must be at most 32 KiB')
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_VALUE_BYTES, 'must be at most 32 KiB (UTF-8)');

export const CreateConfigurationInput = z
  .object({
    environment: Environment,
    key: ConfigurationKey,
    value: ConfigurationValue,
    secret: z.boolean().default(false),
  })
  .strict();
export type CreateConfigurationInput = z.input<typeof CreateConfigurationInput>;

/** `key` and `environment` identify a variable and are fixed; only the value and secrecy change. */
export const UpdateConfigurationInput = z
  .object({
    value: ConfigurationValue.optional(),
    secret: z.boolean().optional(),
  })
  .strict();
export type UpdateConfigurationInput = z.input<typeof UpdateConfigurationInput>;

export const ListConfigurationsFilter = z.object({ environment: Environment.optional() }).strict();
export type ListConfigurationsFilter = z.input<typeof ListConfigurationsFilter>;

export interface ConfigurationDeps {
  configurations: ConfigurationRepository;
  events: EventRepository;
  locks: LockRepository;
  secretBox: SecretBox;
}

/**
 * Updates and re-encryption of one record run one at a time: "a secret stays secret" must not depend
 * on a conditional update being atomic, which FerretDB 1.24 does not guarantee.
 */
const recordLock = (id: string) => `configuration:${id}`;

/** Binds a sealed value to its record: moving the ciphertext to another record makes it unreadable. */
export function configurationAad(doc: Pick<ConfigurationDoc, '_id' | 'key'>): string {
  return `configuration:${doc._id}:${doc.key}`;
}

const SECRET_STAYS_SECRET = 'a secret configuration cannot be made non-secret; delete it and create it again';

export async function createConfiguration(
  deps: ConfigurationDeps,
  ctx: ServiceContext,
  projectId: string,
  input: CreateConfigurationInput,
  reservedId?: string,
): Promise<ConfigurationDoc> {
  const parsed = CreateConfigurationInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  // An earlier run of the same request (Idempotency-Key) made it already: that one is the answer.
  const { doc } = await createOnce(
    reservedId,
    (existing) => deps.configurations.findInProject(ctx.accountId, projectId, existing),
    () => insertConfiguration(deps, ctx, projectId, data, reservedId),
  );
  return doc;
}

async function insertConfiguration(
  deps: ConfigurationDeps,
  ctx: ServiceContext,
  projectId: string,
  data: z.output<typeof CreateConfigurationInput>,
  reservedId: string | undefined,
): Promise<ConfigurationDoc> {
  const now = new Date();
  const id = reservedId ?? newId('cfg', now.getTime());
  const doc: ConfigurationDoc = {
    _id: id,
    account_id: ctx.accountId,
    project_id: projectId,
    environment: data.environment,
    key: data.key,
    secret: data.secret,
    value: data.secret ? null : data.value,
    value_encrypted: data.secret ? deps.secretBox.seal(data.value, configurationAad({ _id: id, key: data.key })) : null,
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.configurations.insert(doc);
  } catch (err) {
    if (isDuplicateKeyError(err))
      throw conflict(`${data.key} already exists in the ${data.environment} environment of this project.`);
    throw err;
  }
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'configuration.created',
    actor: ctx.actor,
    projectId,
    data: { configuration_id: id, environment: doc.environment, key: doc.key, secret: doc.secret },
    at: now,
  });
  return doc;
}

/** Whether the configuration exists in the project (a request run again finds what it made). */
export async function configurationExists(deps: Pick<ConfigurationDeps, 'configurations'>, accountId: string, projectId: string, id: string): Promise<boolean> {
  return (await deps.configurations.findInProject(accountId, projectId, id)) !== null;
}

export async function getConfiguration(
  deps: Pick<ConfigurationDeps, 'configurations'>,
  accountId: string,
  projectId: string,
  id: string,
): Promise<ConfigurationDoc> {
  const doc = await deps.configurations.findInProject(accountId, projectId, id);
  if (!doc) throw notFound('No such configuration.');
  return doc;
}

export async function listConfigurations(
  deps: Pick<ConfigurationDeps, 'configurations'>,
  accountId: string,
  projectId: string,
  filter: ListConfigurationsFilter,
  page: PageRequest,
): Promise<PageResult<ConfigurationDoc>> {
  const parsed = ListConfigurationsFilter.safeParse(filter);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  return await deps.configurations.page(accountId, projectId, parsed.data, page);
}

/**
 * Changes the value and/or makes the variable secret. Making a secret non-secret is refused with 422
 * `validation_failed` on `secret`: it is a rule about that field's value, the same for every request
 * that sends it, so it reads like any other invalid field rather than a state conflict.
 */
export async function updateConfiguration(
  deps: ConfigurationDeps,
  ctx: ServiceContext,
  projectId: string,
  id: string,
  input: UpdateConfigurationInput,
): Promise<ConfigurationDoc> {
  const parsed = UpdateConfigurationInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  // 404 before anything else, so no lease is ever taken on an id from another account.
  await getConfiguration(deps, ctx.accountId, projectId, id);
  const result = await withLock(deps, recordLock(id), async () => {
    const current = await getConfiguration(deps, ctx.accountId, projectId, id);
    if (current.secret && data.secret === false) throw validationFailed([{ field: 'secret', message: SECRET_STAYS_SECRET }]);
    const secret = data.secret ?? current.secret;
    const changed: string[] = [];
    if (data.value !== undefined) changed.push('value');
    if (secret !== current.secret) changed.push('secret');
    if (changed.length === 0) return { doc: current, changed };

    const changes: ConfigurationChanges = { updated_at: new Date() };
    // And still conditional on what was read, as a second line of defence.
    const expect: { secret: boolean; value?: string | null } = { secret: current.secret };
    if (secret) {
      const plaintext = data.value ?? current.value ?? '';
      if (data.value === undefined) expect.value = current.value;
      Object.assign(changes, { secret: true, value: null, value_encrypted: deps.secretBox.seal(plaintext, configurationAad(current)) });
    } else {
      changes.value = data.value!;
    }
    const updated = await deps.configurations.updateWhere(ctx.accountId, projectId, id, expect, changes);
    if (!updated) throw conflict('The configuration was changed by another request at the same time; retry.');
    return { doc: updated, changed };
  });
  if (result.changed.length === 0) return result.doc;
  const updated = result.doc;
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'configuration.updated',
    actor: ctx.actor,
    projectId,
    data: { configuration_id: id, environment: updated.environment, key: updated.key, secret: updated.secret, changed: result.changed },
    at: updated.updated_at,
  });
  return updated;
}

export async function deleteConfiguration(
  deps: Pick<ConfigurationDeps, 'configurations' | 'events'>,
  ctx: ServiceContext,
  projectId: string,
  id: string,
): Promise<ConfigurationDoc> {
  const doc = await deps.configurations.delete(ctx.accountId, projectId, id);
  if (!doc) throw notFound('No such configuration.');
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'configuration.deleted',
    actor: ctx.actor,
    projectId,
    data: { configuration_id: doc._id, environment: doc.environment, key: doc.key, secret: doc.secret },
  });
  return doc;
}

/**
 * The API object. Secret values are `null` unless `reveal` is set; the route sets it only for
 * `?reveal=true` from a caller with the admin scope.
 */
export function presentConfiguration(doc: ConfigurationDoc, options: { reveal?: boolean; secretBox?: SecretBox } = {}) {
  let value: string | null = doc.value;
  if (doc.secret) {
    value = null;
    if (options.reveal) {
      if (!options.secretBox) throw new Error('revealing a secret configuration needs the secret box');
      value = options.secretBox.open(doc.value_encrypted!, configurationAad(doc));
    }
  }
  return {
    id: doc._id,
    project_id: doc.project_id,
    environment: doc.environment,
    key: doc.key,
    value,
    secret: doc.secret,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export interface ReencryptResult {
  current_key: string;
  reencrypted: number;
  /** Changed by someone else between read and write: sealed with whatever key that writer had. */
  skipped: number;
  /** Values that could not be opened (unknown key, or tampered with): left as they are. */
  failed: { id: string; kid: string; error: string }[];
  /** After the pass: how many secret values each data key still seals. */
  by_key: Record<string, number>;
}

/**
 * Moves every secret value to the current data key (after `slipway keys rotate-data` and a restart of
 * every instance). When `by_key` shows only the current key, older keys can be removed from `keys/`.
 */
export async function reencryptConfigurations(deps: Pick<ConfigurationDeps, 'configurations' | 'locks' | 'secretBox'>): Promise<ReencryptResult> {
  const current = deps.secretBox.currentKeyId;
  let reencrypted = 0;
  let skipped = 0;
  const failed: ReencryptResult['failed'] = [];
  for await (const doc of deps.configurations.sealedNotUnder(current)) {
    if (!doc.value_encrypted) continue;
    const aad = configurationAad(doc);
    let plaintext: string;
    try {
      plaintext = deps.secretBox.open(doc.value_encrypted, aad);
    } catch (err) {
      // One unreadable value must not stop the others from moving to the new key.
      failed.push({ id: doc._id, kid: doc.value_encrypted.kid, error: (err as Error).name === 'UnknownDataKeyError' ? 'unknown data key' : 'cannot be decrypted' });
      continue;
    }
    const sealed = deps.secretBox.seal(plaintext, aad);
    const replaced = await withLock(deps, recordLock(doc._id), () => deps.configurations.replaceSealed(doc._id, doc.value_encrypted!.ct, sealed), { waitMs: 1_000 }).catch(
      () => false,
    );
    if (replaced) reencrypted++;
    else skipped++;
  }
  return { current_key: current, reencrypted, skipped, failed, by_key: await deps.configurations.countSealedByKey() };
}
