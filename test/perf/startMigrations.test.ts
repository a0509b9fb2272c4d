import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createChanges } from '../../src/lib/changes.ts';
import { collectionName } from '../../src/repositories/oidc/artifacts.ts';
import { createRepositories, migrate, type Repositories } from '../../src/repositories/index.ts';

/**
 * What a start reads. The re-keying of authorization-server records stored before ids were hashed
 * reads every artifact collection whole (no index answers `payload: {$exists: true}`; about 3 s per
 * 100,000 artifacts on the embedded database). It runs at the first start of a database and is then
 * marked done, so later starts do not pay it; `slipway db migrate` still runs it every time.
 */
let client: MongoClient;
let repos: Repositories;
const started: CommandStartedEvent[] = [];

beforeAll(async () => {
  client = await MongoClient.connect(inject('mongodbUri'), { monitorCommands: true });
  client.on('commandStarted', (event) => started.push(event));
  const db = client.db(`t_${randomBytes(6).toString('hex')}`);
  repos = createRepositories(db, { changes: createChanges() });
});
afterAll(async () => {
  await client.db(repos.users.collection.dbName).dropDatabase().catch(() => undefined);
  await client.close();
});

/** The finds of one migration run that look for records in the old form. */
async function legacyReads(run: () => Promise<unknown>): Promise<string[]> {
  started.length = 0;
  await run();
  return started.filter((e) => e.commandName === 'find' && JSON.stringify(e.command.filter ?? {}).includes('"payload"')).map((e) => String(e.command.find));
}

describe('migrations at start', () => {
  it('the first start of a database looks for old records in every artifact collection; later starts do not', async () => {
    const db = client.db(repos.users.collection.dbName);
    const first = await legacyReads(() => migrate(db, repos, { once: true }));
    expect(first).toContain(collectionName('RefreshToken'));
    expect(first).toContain(collectionName('Grant'));
    for (let start = 0; start < 3; start++) expect(await legacyReads(() => migrate(db, repos, { once: true }))).toEqual([]);
  });

  it('`slipway db migrate` runs the pass every time, and a record in the old form is re-keyed by it', async () => {
    const db = client.db(repos.users.collection.dbName);
    const id = randomBytes(32).toString('base64url');
    const col = db.collection<{ _id: string; payload: string; expires_at: Date | null }>(collectionName('Session'));
    await col.insertOne({ _id: id, payload: JSON.stringify({ kind: 'Session', jti: id, uid: randomBytes(16).toString('hex') }), expires_at: new Date(Date.now() + 3600_000) });
    expect(await legacyReads(() => migrate(db, repos))).toContain(collectionName('Session'));
    expect(await col.countDocuments({ _id: id })).toBe(0);
    expect(await col.countDocuments({ payload: { $exists: true } })).toBe(0);
  });

  it('two instances starting at once both finish, and the pass is marked done once', async () => {
    const db = client.db(`t_${randomBytes(6).toString('hex')}`);
    const other = createRepositories(db, { changes: createChanges() });
    try {
      await Promise.all([migrate(db, other, { once: true }), migrate(db, other, { once: true })]);
      // One marker per one-time pass (the artifacts' re-keying, people apart from memberships, environments
      // from deployments), each written once.
      const markers = await db.collection('migrations').find({}).toArray();
      expect(markers).toHaveLength(3);
      expect(new Set(markers.map((m) => String(m._id))).size).toBe(3);
      expect(await legacyReads(() => migrate(db, other, { once: true }))).toEqual([]);
    } finally {
      await db.dropDatabase().catch(() => undefined);
    }
  });
});
