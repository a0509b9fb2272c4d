import type { Collection, Db } from 'mongodb';
import { newId } from '../lib/ids.ts';
import { findPage } from './page.ts';
import { type PageRequest, type PageResult } from '../domain/page.ts';

export interface AccountDoc {
  _id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export class AccountRepository {
  readonly collection: Collection<AccountDoc>;
  constructor(db: Db) {
    this.collection = db.collection<AccountDoc>('accounts');
  }

  async ensureIndexes(): Promise<void> {
    // _id is the only lookup.
  }

  async create(name: string): Promise<AccountDoc> {
    const now = new Date();
    const doc: AccountDoc = { _id: newId('account'), name, created_at: now, updated_at: now };
    await this.collection.insertOne(doc);
    return doc;
  }

  async findById(id: string): Promise<AccountDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOne({ _id: id });
  }

  /** Oldest first (ids are time-ordered). A full read: for the admin CLI, not for requests. */
  async page(page: PageRequest): Promise<PageResult<AccountDoc>> {
    return await findPage(this.collection, {}, { _id: 1 }, page);
  }

  async delete(id: string): Promise<AccountDoc | null> {
    if (typeof id !== 'string') return null;
    return await this.collection.findOneAndDelete({ _id: id });
  }
}
