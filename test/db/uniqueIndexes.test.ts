import { randomBytes } from 'node:crypto';
import { MongoClient, type Db, type Document, type IndexDescriptionInfo } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DuplicateProjectName, type ProjectDoc } from '../../src/repositories/projects.ts';
import { useApiServer } from '../support/fixtures.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

/*
 * The claims Slipway makes with a unique index hold on the database the server runs on, a null in an
 * indexed field included: the embedded FerretDB's patched build once stored a second document whose
 * indexed fields were the same null and name (tools/ferretdb/patches/0006-*.patch).
 */
const env = useApiServer();
let client: MongoClient;
let db: Db;
let second: TestServer;

beforeAll(async () => {
  client = await MongoClient.connect(inject('mongodbUri'));
  db = client.db(env.server.config.mongodbDb);
  second = await startAnotherInstance(env.server);
});

afterAll(async () => {
  await second?.stop();
  await client?.close();
});

const project = (id: string, accountId: string | null, name: string): ProjectDoc => ({
  _id: id,
  account_id: accountId as string,
  name,
  name_lower: name.toLowerCase(),
  status: 'active',
  deploy_target: null,
  created_at: new Date(),
  updated_at: new Date(),
});

describe('unique indexes with a null field', () => {
  it('a project whose account is null is refused the second time with its name (DuplicateProjectName), and stored once', async () => {
    const projects = env.server.repos.projects;
    const name = `Null Owner ${randomBytes(3).toString('hex')}`;
    await projects.insert(project(`proj_null_${randomBytes(4).toString('hex')}`, null, name));
    await expect(projects.insert(project(`proj_null_${randomBytes(4).toString('hex')}`, null, name.toUpperCase()))).rejects.toBeInstanceOf(DuplicateProjectName);
    // a null name under a null account too
    const nullName = { ...project(`proj_null_${randomBytes(4).toString('hex')}`, null, 'x'), name_lower: null as unknown as string };
    await projects.insert(nullName);
    await expect(projects.insert({ ...nullName, _id: `proj_null_${randomBytes(4).toString('hex')}` })).rejects.toBeInstanceOf(DuplicateProjectName);
    expect(await projects.collection.countDocuments({ account_id: null as unknown as string, name_lower: name.toLowerCase() })).toBe(1);
    expect(await projects.collection.countDocuments({ account_id: null as unknown as string, name_lower: null as unknown as string })).toBe(1);
  });

  it('every unique index the server declares refuses a second document with the same values, a null in any one field included', async () => {
    const tried: string[] = [];
    for (const { name: collection } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      const indexes = (await db.collection(collection).listIndexes().toArray()) as IndexDescriptionInfo[];
      for (const index of indexes.filter((i) => i.unique && i.name !== '_id_')) {
        const fields = Object.keys(index.key);
        for (const nullField of fields) {
          const values: Document = Object.fromEntries(fields.map((f, i) => [f, f === nullField ? null : `unique-test-${i}`]));
          const c = db.collection<{ _id: string } & Document>(collection);
          await c.insertOne({ _id: `u1_${randomBytes(6).toString('hex')}`, ...values });
          const refused = await c.insertOne({ _id: `u2_${randomBytes(6).toString('hex')}`, ...values }).then(
            () => null,
            (err: { code?: number }) => err.code,
          );
          expect(refused, `${collection}.${index.name} with ${nullField}: null`).toBe(11000);
          expect(await c.countDocuments(values)).toBe(1);
          await c.deleteMany(values);
          tried.push(`${collection}.${index.name}`);
        }
      }
    }
    // the indexes the repositories declare (src/repositories: grep `unique: true`) are all there
    expect(new Set(tried)).toEqual(
      new Set(['identities.email_unique', 'users.account_email_unique', 'configurations.project_environment_key_unique', 'quota_slots.account_kind_n', 'projects.account_name_unique', 'environments.project_name_unique']),
    );
  });

  it('one name, many creates at once on two instances, in any case: one 201, every other 409 conflict, one project stored', async () => {
    const name = `Race ${randomBytes(3).toString('hex')}`;
    const variants = [name, name.toLowerCase(), name.toUpperCase()];
    const post = (server: TestServer, i: number) =>
      fetch(`${server.url}/v1/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: variants[i % variants.length] }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error?: { code?: string } } }));
    // on one instance, then on two
    for (const servers of [[env.server], [env.server, second]]) {
      const round = `${name} ${servers.length}`;
      variants.splice(0, 3, round, round.toLowerCase(), round.toUpperCase());
      const answers = await race(12, (i) => post(servers[i % servers.length]!, i));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 201)) {
        expect(a.status).toBe(409);
        expect(a.body.error?.code).toBe('conflict');
      }
      expect(await env.server.repos.projects.collection.countDocuments({ account_id: env.owner.accountId, name_lower: round.toLowerCase() })).toBe(1);
    }
  });
});
