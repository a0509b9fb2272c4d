import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { inject } from 'vitest';
import { createChanges } from '../../src/lib/changes.ts';
import { createRepositories, migrate, type Repositories } from '../../src/repositories/index.ts';

export interface TestDatabase {
  db: Db;
  repos: Repositories;
  close(): Promise<void>;
}

/** A database of its own for one test file, on the run's server, with every index created. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const client = await MongoClient.connect(inject('mongodbUri'));
  const db = client.db(`t_${randomBytes(6).toString('hex')}`);
  const repos = createRepositories(db, { changes: createChanges() });
  await migrate(db, repos);
  return {
    db,
    repos,
    async close() {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

/** Every document of every collection, as text: for asserting a secret is stored nowhere. */
export async function dumpDatabase(db: Db): Promise<string> {
  const parts: string[] = [];
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    parts.push(JSON.stringify(await db.collection(name).find({}).toArray()));
  }
  return parts.join('\n');
}
