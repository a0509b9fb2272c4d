import type { Principal } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { AppError, conflict, notFound, validationFailed } from '../errors.ts';
import { writeUnique } from '../db/claims.ts';
import { newId } from '../lib/ids.ts';
import type { ConfigurationChanges, ConfigurationDoc } from '../repositories/configurations.ts';
import type { Repositories } from '../repositories/index.ts';
import type { ProjectDoc } from '../repositories/projects.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { CreateConfigurationBody, ListConfigurationsQuery, UpdateConfigurationBody } from '../schemas/configurations.ts';
import { UnknownDataKeyError, type SecretBox } from '../keys/secretBox.ts';
import { createOnceInProject } from './createOnce.ts';
import type { EventLog } from './eventLog.ts';
import type { LockService } from './locking.ts';
import type { ProjectService } from './projects.ts';
import { ProjectRecordService, ProjectRecords, type ProjectPlace } from './accountRecords.ts';

/**
 * Updates and re-encryption of one record run one at a time: "a secret stays secret" must not depend
 * on a conditional update being atomic, which FerretDB 1.24 does not guarantee.
 */
const recordLock = (id: string) => `configuration:${id}`;

/** Binds a sealed value to its record: moving the ciphertext to another record makes it unreadable. */
function configurationAad(doc: Pick<ConfigurationDoc, '_id' | 'key'>): string {
  return `configuration:${doc._id}:${doc.key}`;
}

/** What the audit log says of a variable: never its value. */
function eventData(doc: ConfigurationDoc) {
  return { configuration_id: doc._id, environment: doc.environment, key: doc.key, secret: doc.secret };
}

/** The most variables one release hands out (a limit far above any real environment). */
const MAX_RELEASED = 5000;

const SECRET_STAYS_SECRET = 'a secret configuration cannot be made non-secret; delete it and create it again';

/** A configuration as read: for a secret read with `reveal`, its plaintext as `revealed`. */
export type ReadConfiguration = ConfigurationDoc & { revealed?: string };

export interface ReadOptions {
  /** Open secret values (the caller has checked that the principal may see them: admin). */
  reveal?: boolean;
}

export type ConfigurationFilter = Pick<ListConfigurationsQuery, 'environment'>;

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

export interface ConfigurationServiceDeps extends Pick<Repositories, 'configurations'> {
  eventLog: EventLog;
  locks: LockService;
  /** Seals secret values at rest and opens them for `reveal`. */
  secretBox: SecretBox;
  /** Finds the project for the principal (404 outside its reach, 409 when archived for a change). */
  projects: ProjectService;
}

/**
 * A project's environment variables (docs/product.md §5). Every method finds the project for the principal
 * first (404 outside its account, or for an API key outside its own project); changes need a project
 * that is not archived (409 project_not_active).
 */
export class ConfigurationService extends ProjectRecordService<ConfigurationServiceDeps, ConfigurationDoc, ConfigurationFilter, 'configuration'> {
  /**
   * `id` is the id reserved for this request (Idempotency-Key): a configuration that already has it
   * was made by an earlier run of the request and is the answer, whatever the project's status now.
   */
  async create(principal: Principal, projectId: string, input: CreateConfigurationBody, id?: string): Promise<ConfigurationDoc> {
    authorize(principal, 'create', 'configuration');
    const madeAlready = id ? async () => (await this.deps.configurations.findInProject(principal.accountId, projectId, id)) !== null : undefined;
    const project = await this.deps.projects.getWritable(principal, projectId, madeAlready);
    const configurations = this.deps.configurations;
    return await createOnceInProject(project, id, (...at) => configurations.findInProject(...at), () => this.#insert(principal, project, input, id));
  }

  async #insert(principal: Principal, project: ProjectDoc, input: CreateConfigurationBody, reservedId: string | undefined): Promise<ConfigurationDoc> {
    const now = new Date();
    const id = reservedId ?? newId('configuration', now.getTime());
    const doc: ConfigurationDoc = {
      _id: id,
      account_id: project.account_id,
      project_id: project._id,
      environment: input.environment,
      key: input.key,
      secret: input.secret,
      value: input.secret ? null : input.value,
      value_encrypted: input.secret ? this.deps.secretBox.seal(input.value, configurationAad({ _id: id, key: input.key })) : null,
      created_at: now,
      updated_at: now,
    };
    await writeUnique(
      () => this.deps.configurations.insert(doc),
      () => {
        throw conflict(`${input.key} already exists in the ${input.environment} environment of this project.`);
      },
    );
    await this.deps.eventLog.record('configuration.created', principal, doc, eventData(doc), now);
    return doc;
  }

  protected readonly records = new ProjectRecords(this.deps.configurations, 'configuration', this.deps.projects);

  /** Ordered by environment, then key. Revealing secret values is its own action (`reveal`). */
  override async list(principal: Principal, projectId: string, filter: ConfigurationFilter, page: PageRequest, options: ReadOptions = {}): Promise<PageResult<ReadConfiguration>> {
    if (!options.reveal) return await this.records.list(principal, projectId, filter, page);
    const result = await this.records.list(principal, projectId, filter, page, 'reveal');
    return { items: result.items.map((doc) => this.#revealed(doc)), total: result.total };
  }

  override async get(principal: Principal, projectId: string, id: string, options: ReadOptions = {}): Promise<ReadConfiguration> {
    return options.reveal ? this.#revealed(await this.records.get(principal, projectId, id, 'reveal')) : await this.records.get(principal, projectId, id);
  }

  /**
   * docs/product.md §9: the variables a deployment to `environment` runs with, secret values in clear.
   * The caller (DeploymentService.configuration) has decided that the principal may have them.
   */
  async releasedFor(project: Pick<ProjectDoc, '_id' | 'account_id'>, environment: string): Promise<{ key: string; value: string; secret: boolean }[]> {
    const docs = await this.deps.configurations.allIn(project.account_id, project._id, environment, MAX_RELEASED);
    return docs.map((doc) => {
      const read = this.#revealed(doc);
      return { key: read.key, value: read.revealed ?? read.value ?? '', secret: read.secret };
    });
  }

  /**
   * The clear values of the project's secret configurations, every environment, for masking them where
   * they must never appear (log lines, docs/product.md §10). The caller has found the project for a
   * principal allowed to write there; the values never leave the process. A value this server cannot
   * open is unknown to it and skipped.
   */
  async secretValuesOf(project: ProjectPlace): Promise<string[]> {
    const values: string[] = [];
    for (const doc of await this.deps.configurations.secretsOfProject(project.account_id, project._id)) {
      try {
        values.push(this.deps.secretBox.open(doc.value_encrypted!, configurationAad(doc)));
      } catch {
        // Unreadable here (its data key is lost, or the ciphertext is not this record's): `reveal` says why.
      }
    }
    return values;
  }

  /**
   * The value in clear; 409 `secret_unreadable` when it cannot be opened: its data key is not in keys/
   * (lost, and accepted as lost at start), or the ciphertext was moved from another record.
   */
  #revealed(doc: ConfigurationDoc): ReadConfiguration {
    if (!doc.secret) return doc;
    try {
      return { ...doc, revealed: this.deps.secretBox.open(doc.value_encrypted!, configurationAad(doc)) };
    } catch (err) {
      const why =
        err instanceof UnknownDataKeyError
          ? `was sealed with data key ${err.kid}, which this server's key material lacks: restore that key into KEYS_DIR, or set the value again.`
          : 'cannot be opened with this server\'s key material (it does not belong to this record): set the value again.';
      throw new AppError(409, 'secret_unreadable', `The secret value of ${doc.key} ${why}`);
    }
  }

  /**
   * Changes the value and/or makes the variable secret. Making a secret non-secret is refused with 422
   * `validation_failed` on `secret`: it is a rule about that field's value, the same for every request
   * that sends it, so it reads like any other invalid field rather than a state conflict.
   */
  async update(principal: Principal, projectId: string, id: string, input: UpdateConfigurationBody): Promise<ConfigurationDoc> {
    authorize(principal, 'update', 'configuration');
    const project = await this.deps.projects.getWritable(principal, projectId);
    // 404 before anything else, so no lease is ever taken on an id from another account.
    await this.records.find(project, id);
    const result = await this.deps.locks.run(recordLock(id), async () => {
      const current = await this.records.find(project, id);
      if (current.secret && input.secret === false) throw validationFailed([{ field: 'secret', message: SECRET_STAYS_SECRET }]);
      const secret = input.secret ?? current.secret;
      const changed: string[] = [];
      if (input.value !== undefined) changed.push('value');
      if (secret !== current.secret) changed.push('secret');
      if (changed.length === 0) return { doc: current, changed };

      const changes: ConfigurationChanges = { updated_at: new Date() };
      // And still conditional on what was read, as a second line of defence.
      const expect: { secret: boolean; value?: string | null } = { secret: current.secret };
      if (secret) {
        const plaintext = input.value ?? current.value ?? '';
        if (input.value === undefined) expect.value = current.value;
        Object.assign(changes, { secret: true, value: null, value_encrypted: this.deps.secretBox.seal(plaintext, configurationAad(current)) });
      } else {
        changes.value = input.value!;
      }
      const updated = await this.deps.configurations.updateWhere(project.account_id, project._id, id, expect, changes);
      if (!updated) throw conflict('The configuration was changed by another request at the same time; retry.');
      return { doc: updated, changed };
    });
    if (result.changed.length === 0) return result.doc;
    const updated = result.doc;
    await this.deps.eventLog.record('configuration.updated', principal, updated, { ...eventData(updated), changed: result.changed }, updated.updated_at);
    return updated;
  }

  async delete(principal: Principal, projectId: string, id: string): Promise<ConfigurationDoc> {
    authorize(principal, 'delete', 'configuration');
    const project = await this.deps.projects.getWritable(principal, projectId);
    const doc = await this.deps.configurations.delete(project.account_id, project._id, id);
    if (!doc) throw notFound('configuration');
    await this.deps.eventLog.record('configuration.deleted', principal, doc, eventData(doc));
    return doc;
  }

  /**
   * Moves every secret value, in every account, to the current data key (after `slipway keys
   * rotate-data` and a restart of every instance). When `by_key` shows only the current key, older keys
   * can be removed from `keys/`. Upkeep of the data at rest for the operator, not a change made for
   * anyone: it takes no principal and records no event.
   */
  async reencryptSecrets(): Promise<ReencryptResult> {
    const current = this.deps.secretBox.currentKeyId;
    let reencrypted = 0;
    let skipped = 0;
    const failed: ReencryptResult['failed'] = [];
    for await (const doc of this.deps.configurations.sealedNotUnder(current)) {
      if (!doc.value_encrypted) continue;
      const aad = configurationAad(doc);
      let plaintext: string;
      try {
        plaintext = this.deps.secretBox.open(doc.value_encrypted, aad);
      } catch (err) {
        // One unreadable value must not stop the others from moving to the new key.
        failed.push({ id: doc._id, kid: doc.value_encrypted.kid, error: (err as Error).name === 'UnknownDataKeyError' ? 'unknown data key' : 'cannot be decrypted' });
        continue;
      }
      const sealed = this.deps.secretBox.seal(plaintext, aad);
      const replaced = await this.deps.locks.run(recordLock(doc._id), () => this.deps.configurations.replaceSealed(doc._id, doc.value_encrypted!.ct, sealed), {
        waitMs: 1_000,
      }).catch(() => false);
      if (replaced) reencrypted++;
      else skipped++;
    }
    return { current_key: current, reencrypted, skipped, failed, by_key: await this.deps.configurations.countSealedByKey() };
  }
}
