import type { Collection, Db, Filter } from 'mongodb';
import type { SealedValue } from '../keys/secretBox.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

/** An environment variable of a project. Secret values are stored only sealed. */
export interface ConfigurationDoc {
  _id: string;
  account_id: string;
  project_id: string;
  environment: string;
  key: string;
  secret: boolean;
  /** The value when not secret; null when secret. */
  value: string | null;
  /** The sealed value when secret; null when not. */
  value_encrypted: SealedValue | null;
  created_at: Date;
  updated_at: Date;
}

export type ConfigurationChanges = Partial<Pick<ConfigurationDoc, 'secret' | 'value' | 'value_encrypted' | 'updated_at'>>;

export class ConfigurationRepository {
  readonly collection: Collection<ConfigurationDoc>;
  constructor(db: Db) {
    this.collection = db.collection<ConfigurationDoc>('configurations');
  }

  async ensureIndexes(): Promise<void> {
    // Never null or missing: project_id is the project's, environment and key are required by the create schema, and no update sets them.
    await this.collection.createIndex({ project_id: 1, environment: 1, key: 1 }, { unique: true, name: 'project_environment_key_unique' });
    // Re-encryption after a data-key rotation finds what is still under an old key.
    await this.collection.createIndex({ 'value_encrypted.kid': 1 }, { name: 'value_kid' });
    // The list's filter and sort; the secret values (re-encryption) without reading the others.
    await this.collection.createIndex({ account_id: 1, project_id: 1, environment: 1, key: 1 }, { name: 'account_project_environment_key' });
    await this.collection.createIndex({ secret: 1 }, { name: 'secret' });
  }

  /** Fails on the unique index when the key exists in that environment (ConfigurationService answers it with writeUnique). */
  async insert(doc: ConfigurationDoc): Promise<void> {
    await this.collection.insertOne(doc);
  }

  async findInProject(accountId: string, projectId: string, id: string): Promise<ConfigurationDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id, account_id: String(accountId), project_id: String(projectId) });
  }

  /** The project's secret configurations (every environment), on the account-project index. */
  async secretsOfProject(accountId: string, projectId: string): Promise<ConfigurationDoc[]> {
    return await this.collection.find({ account_id: String(accountId), project_id: String(projectId), secret: true }).toArray();
  }

  /** Ordered by environment, then key. */
  async page(accountId: string, projectId: string, filter: { environment?: string }, page: PageRequest): Promise<PageResult<ConfigurationDoc>> {
    const query: Filter<ConfigurationDoc> = { account_id: String(accountId), project_id: String(projectId) };
    if (filter.environment !== undefined) query.environment = String(filter.environment);
    return await findPage(this.collection, query, { environment: 1, key: 1 }, page);
  }

  /**
   * Applies `changes` only if the record still is as the caller read it (secret or not, and where
   * given the plain value), so a value computed from one state is never written over another: above
   * all, never a plain value over a record that meanwhile became secret. Null when it no longer
   * matches (gone, or changed underneath).
   */
  async updateWhere(
    accountId: string,
    projectId: string,
    id: string,
    expect: { secret: boolean; value?: string | null },
    changes: ConfigurationChanges,
  ): Promise<ConfigurationDoc | null> {
    const filter: Filter<ConfigurationDoc> = { _id: String(id), account_id: String(accountId), project_id: String(projectId), secret: expect.secret === true };
    if (expect.value !== undefined) filter.value = expect.value === null ? null : String(expect.value);
    return await this.collection.findOneAndUpdate(filter, { $set: changes }, { returnDocument: 'after' });
  }

  async delete(accountId: string, projectId: string, id: string): Promise<ConfigurationDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOneAndDelete({ _id: id, account_id: String(accountId), project_id: String(projectId) });
  }

  /** Every variable of one environment of a project, by key (at most `limit`). */
  async allIn(accountId: string, projectId: string, environment: string, limit: number): Promise<ConfigurationDoc[]> {
    return await this.collection
      .find({ account_id: String(accountId), project_id: String(projectId), environment: String(environment) }, { sort: { key: 1 }, limit })
      .toArray();
  }

  /** For project deletion. */
  async deleteAllForProject(accountId: string, projectId: string): Promise<number> {
    const deletedCount = await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
    return deletedCount;
  }

  /** Secret records sealed under any key but `kid`. */
  sealedNotUnder(kid: string): AsyncIterable<ConfigurationDoc> {
    return this.collection.find({ secret: true, 'value_encrypted.kid': { $ne: kid } }).sort({ _id: 1 });
  }

  /** Swaps the sealed value only if it is still the one that was read (its ciphertext is unique). */
  async replaceSealed(id: string, expectedCt: string, sealed: SealedValue): Promise<boolean> {
    const { modifiedCount } = await this.collection.updateOne(
      { _id: id, secret: true, 'value_encrypted.ct': expectedCt },
      { $set: { value_encrypted: sealed } },
    );
    return modifiedCount === 1;
  }

  /** How many secret values `kid` seals (on the `value_kid` index). */
  async countSealedWith(kid: string): Promise<number> {
    return await this.collection.countDocuments({ secret: true, 'value_encrypted.kid': String(kid) });
  }

  /** Every data key id that seals a secret value. */
  async sealingKeyIds(): Promise<string[]> {
    // No filter: a whole-collection read, once per database (the registry's first start); plain values have none.
    return (await this.collection.distinct('value_encrypted.kid')).filter((kid): kid is string => typeof kid === 'string');
  }

  /** How many secret values each data key seals. */
  async countSealedByKey(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    const cursor = this.collection.find({ secret: true }).project<{ value_encrypted: { kid: string } | null }>({ 'value_encrypted.kid': 1 });
    for await (const doc of cursor) {
      const kid = doc.value_encrypted?.kid ?? '(none)';
      counts[kid] = (counts[kid] ?? 0) + 1;
    }
    return counts;
  }
}
