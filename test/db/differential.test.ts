import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BSON, Double, Int32, Long, MongoClient, ObjectId, type Collection, type Db, type Document, type Filter, type IndexSpecification, type Sort } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';

const { EJSON } = BSON;

/**
 * Slipway's patched FerretDB against FerretDB 1.24.2 as released: the same operations on both, through
 * the official driver, give the same documents, counts and errors (tools/ferretdb/patches push queries
 * down to SQLite indexes; none may change an answer). Fixed cases (unique indexes with null, missing,
 * mixed numeric types, arrays, compound) and a seeded random run of the query, update and delete shapes
 * Slipway's repositories make.
 *
 * With SLIPWAY_REFERENCE_MONGODB_URI (a server that behaves like MongoDB), every case also runs there, as
 * the reference for MongoDB's semantics: where it and FerretDB 1.24.2 differ, the case's shape must be in
 * KNOWN_DIFFERENCES, which says why the difference cannot matter to Slipway; any other difference fails.
 */

/** Where FerretDB 1.24.2 differs from MongoDB, by case shape, and why Slipway does not depend on it. */
const KNOWN_DIFFERENCES: Record<string, string> = {
  'unique:missing':
    'FerretDB 1.24 admits any number of documents missing a field of a unique index (its SQLite index sees SQL NULL); MongoDB indexes a missing field as null and admits one. ' +
    'Slipway sets every field of every unique index it declares on every insert (see the comment beside each declaration in src/repositories), and never unsets one.',
  'unique:array':
    'FerretDB 1.24 compares a whole array as one key of a unique index; MongoDB indexes each element (multikey), so arrays sharing an element, or an array and one of its elements, are duplicates there. ' +
    'No field of a unique index of Slipway ever holds an array (strings and numbers only).',
  'unique:build-over-duplicates':
    'FerretDB 1.24 refuses to build a unique index over duplicates with code 1 (InternalError), MongoDB with 11000. ' +
    'Slipway creates its unique indexes at start-up and stops on either error alike; it never builds one over data it expects to be refused.',
  'update:duplicate-code':
    'FerretDB 1.24 answers an update that breaks a unique index with code 1 (InternalError, SQLite\'s `UNIQUE constraint failed`), MongoDB with 11000. ' +
    'Slipway reads a unique-index conflict in one place (src/db/claims.ts), which knows both answers.',
  'unique:number':
    'The reference, PostgreSQL + DocumentDB, keeps Int32 1, Double 1.0 and Long 1 apart in a unique index (its equality finds all three), where MongoDB and FerretDB 1.24 refuse the second as a duplicate: the reference differs from MongoDB here, not FerretDB 1.24. ' +
    'Slipway writes each number of a unique index (quota slots\' n) from a JavaScript number, which the driver encodes in one type for one value, so one value never meets itself in another type.',
  'unique:json-alike':
    'FerretDB 1.24 finds an ObjectId equal to the string of its hex digits, and a date equal to the number of its milliseconds, in a unique index (their JSON is the same); MongoDB does not. ' +
    'Each field of a unique index of Slipway holds one type only (strings, or numbers for quota slots), so such values never meet.',
};

/** A filter of any shape (ids here are strings and ObjectIds, which the driver's types do not mix). */
const q = (filter: unknown) => filter as Filter<Document>;

interface Engine {
  name: 'patched' | 'unpatched' | 'reference';
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

type Observation = { ok: unknown } | { error: Record<string, unknown> };

interface Difference {
  case: string;
  shape: string;
  engines: string;
  got: Observation;
  want: Observation;
}

const dbName = `diff_${randomBytes(4).toString('hex')}`;
const engines: Engine[] = [];
const started: EmbeddedDatabase[] = [];
const dirs: string[] = [];
const differences: Difference[] = [];
const knownSeen = new Map<string, number>();

async function startEngine(name: Engine['name'], uri: string): Promise<Engine> {
  // promoteValues: false keeps Int32, Double and Long apart in what is compared
  const client = await MongoClient.connect(uri, { promoteValues: false, serverSelectionTimeoutMS: 10_000 });
  const db = client.db(dbName);
  return { name, client, db, close: async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  } };
}

async function startBinary(unpatched: boolean): Promise<string> {
  const binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION, undefined, undefined, { unpatched });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-diff-db-'));
  dirs.push(dir);
  const db = await startFerretdb({ binary, dataDir: dir });
  started.push(db);
  return db.uri;
}

beforeAll(async () => {
  // The run's database is the patched build unless MONGODB_URI points the run elsewhere.
  const patchedUri = process.env.MONGODB_URI ? await startBinary(false) : inject('mongodbUri');
  engines.push(await startEngine('patched', patchedUri), await startEngine('unpatched', await startBinary(true)));
  const reference = process.env.SLIPWAY_REFERENCE_MONGODB_URI;
  if (reference) engines.push(await startEngine('reference', reference));
}, 600_000);

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await Promise.all(started.map((db) => db.stop()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  if (knownSeen.size) console.log(`[differential] known differences from the reference: ${[...knownSeen].map(([s, n]) => `${s} ×${n}`).join(', ')}`);
});

const serialize = (value: unknown): unknown => EJSON.serialize(value, { relaxed: false });

/** What an operation answered: its value, or the server's error (code, and the write errors' indexes). */
async function observe(op: () => Promise<unknown>): Promise<Observation> {
  try {
    const value = await op();
    return { ok: value instanceof Unordered ? { unordered: serialize(value.docs) } : serialize(value) };
  } catch (err) {
    const e = err as { code?: unknown; codeName?: unknown; writeErrors?: { index: number; code: number }[]; result?: { insertedCount?: number }; name?: string; message?: string };
    if (e.code === undefined) throw err;
    const error: Record<string, unknown> = { code: e.code };
    // FerretDB 1.24's answer to an update into a duplicate: code 1 with SQLite's words (KNOWN_DIFFERENCES)
    if (Number(e.code) === 1 && /UNIQUE constraint failed/.test(e.message ?? '')) error.sqliteUnique = true;
    if (Array.isArray(e.writeErrors)) error.writeErrors = e.writeErrors.map((w) => [w.index, w.code]);
    if (typeof e.result?.insertedCount === 'number') error.inserted = e.result.insertedCount;
    return { error };
  }
}

/**
 * Documents of an answer whose order MongoDB leaves open (no sort): both builds must still give them in
 * the same order (the table's: patch 7), a reference only the same documents.
 */
class Unordered {
  readonly docs: Document[];
  constructor(docs: Document[]) {
    this.docs = docs;
  }
}
const unordered = (docs: Document[]) => new Unordered(docs);

/**
 * The documents in a canonical order (by _id). `orderFree`: an operation on the first of several matches,
 * where MongoDB leaves open which one it takes (no sort): only whether one was found, and the counts of a
 * write, are compared (the differences in what it took are resynchronised away after the write).
 */
function canonical(observation: Observation, orderFree = false): Observation {
  const ok = 'ok' in observation ? observation.ok : undefined;
  if (orderFree) {
    // A write that took a document whose change broke the unique index did match one: another engine
    // may have taken another document, whose change did not.
    if ('error' in observation) return Number(observation.error.code) === 11000 || observation.error.sqliteUnique ? { ok: { matched: true } } : observation;
    if (ok === null || typeof ok !== 'object') return observation;
    const counts = ok as { matchedCount?: unknown; deletedCount?: unknown };
    if ('matchedCount' in counts) return { ok: { matched: Number(counts.matchedCount) > 0 } };
    if ('deletedCount' in counts) return { ok: { deleted: Number(counts.deletedCount) } };
    return { ok: 'a document' };
  }
  if (typeof ok !== 'object' || ok === null || !('unordered' in ok)) return observation;
  const docs = [...(ok as { unordered: { _id: unknown }[] }).unordered];
  const key = (d: { _id: unknown }) => JSON.stringify(d._id);
  return { ok: { unordered: docs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) } };
}

/**
 * Runs one operation on every engine (at the same time) and records how the answers differ: the patched
 * build from the unpatched one always counts; the reference from the unpatched one unless the shape is a
 * known difference.
 */
async function check(name: string, shape: string, op: (db: Db) => Promise<unknown>): Promise<boolean> {
  const results = await Promise.all(engines.map((e) => observe(() => op(e.db))));
  const byName = new Map(engines.map((e, i) => [e.name, results[i]!]));
  const unpatched = byName.get('unpatched')!;
  const patched = byName.get('patched')!;
  if (!equal(patched, unpatched)) differences.push({ case: name, shape, engines: 'patched vs unpatched', got: patched, want: unpatched });
  const reference = byName.get('reference');
  if (!reference) return true;
  const orderFree = shape.startsWith('first:');
  if (equal(canonical(reference, orderFree), canonical(unpatched, orderFree))) return true;
  const known = shape in KNOWN_DIFFERENCES ? shape : equal(canonical(reference, orderFree), canonical(asMongodbCode(unpatched), orderFree)) ? 'update:duplicate-code' : undefined;
  if (known) knownSeen.set(known, (knownSeen.get(known) ?? 0) + 1);
  else differences.push({ case: name, shape, engines: 'reference vs unpatched', got: reference, want: unpatched });
  return false;
}

/** FerretDB 1.24's update into a duplicate (code 1, SQLite's `UNIQUE constraint failed`) as MongoDB answers it. */
function asMongodbCode(observation: Observation): Observation {
  return 'error' in observation && observation.error.sqliteUnique ? { error: { code: 11000 } } : observation;
}

/**
 * Gives the reference the unpatched build's documents of `coll`, after a write they answered differently
 * (recorded already): later cases then compare the next operation, not the consequences of this one.
 */
async function resyncReference(coll: string): Promise<void> {
  const reference = engines.find((e) => e.name === 'reference');
  const unpatched = engines.find((e) => e.name === 'unpatched')!;
  if (!reference) return;
  const docs = await unpatched.db.collection(coll).find({}).toArray();
  await reference.db.collection(coll).deleteMany({});
  if (docs.length) await reference.db.collection(coll).insertMany(docs);
}

const equal = (a: Observation, b: Observation) => JSON.stringify(a) === JSON.stringify(b);

const all = (coll: string) => async (db: Db) => unordered(await db.collection(coll).find({}).toArray());

// ---------------------------------------------------------------------------------------------------
// Unique indexes

interface UniqueCase {
  name: string;
  shape: string;
  key: IndexSpecification;
  docs: Document[];
}

const oid = new ObjectId('5f00000000000000000000aa');
const UNIQUE_CASES: UniqueCase[] = [
  { name: 'null, single field', shape: 'unique:null', key: { a: 1 }, docs: [{ a: null }, { a: null }, { a: 'x' }] },
  { name: 'null, descending', shape: 'unique:null', key: { a: -1 }, docs: [{ a: null }, { a: null }] },
  {
    name: 'null, compound {account, name_lower}',
    shape: 'unique:null',
    key: { account: 1, name_lower: 1 },
    docs: [
      { account: null, name_lower: 'x' },
      { account: null, name_lower: 'x' },
      { account: null, name_lower: 'y' },
      { account: 'acct_1', name_lower: 'x' },
      { account: 'acct_1', name_lower: 'x' },
      { account: null, name_lower: null },
      { account: null, name_lower: null },
    ],
  },
  { name: 'missing, single field', shape: 'unique:missing', key: { a: 1 }, docs: [{}, {}, { a: null }] },
  { name: 'missing, compound', shape: 'unique:missing', key: { account: 1, name_lower: 1 }, docs: [{ name_lower: 'x' }, { name_lower: 'x' }, { account: null, name_lower: 'x' }] },
  {
    name: 'int, double, long',
    shape: 'unique:number',
    key: { a: 1 },
    docs: [{ a: new Int32(1) }, { a: new Double(1) }, { a: Long.fromNumber(1) }, { a: new Double(1.5) }, { a: new Double(1.5) }, { a: new Int32(-3) }, { a: Long.fromNumber(-3) }],
  },
  { name: 'long, then int and double', shape: 'unique:number', key: { a: 1 }, docs: [{ a: Long.fromNumber(7) }, { a: new Int32(7) }, { a: new Double(7) }] },
  {
    name: 'numbers, compound {account_id, kind, n} (quota slots)',
    shape: 'unique:number',
    key: { account_id: 1, kind: 1, n: 1 },
    docs: [
      { account_id: 'a', kind: 'projects', n: new Int32(0) },
      { account_id: 'a', kind: 'projects', n: new Double(0) },
      { account_id: 'a', kind: 'projects', n: new Int32(1) },
      { account_id: 'a', kind: 'users', n: new Int32(0) },
      { account_id: 'a', kind: 'projects', n: new Double(-1732000000000123) },
      { account_id: 'a', kind: 'projects', n: new Double(-1732000000000123) },
    ],
  },
  { name: 'equal arrays', shape: 'unique:array', key: { a: 1 }, docs: [{ a: [1, 2] }, { a: [1, 2] }] },
  { name: 'overlapping arrays, an array and its element', shape: 'unique:array', key: { a: 1 }, docs: [{ a: [1, 2] }, { a: [2, 3] }, { a: 2 }, { a: [5] }, { a: 5 }] },
  { name: 'arrays, compound', shape: 'unique:array', key: { account: 1, name_lower: 1 }, docs: [{ account: ['a', 'b'], name_lower: 'x' }, { account: ['a', 'b'], name_lower: 'x' }, { account: 'a', name_lower: 'x' }] },
  { name: 'strings, case and Unicode', shape: 'unique:string', key: { account_id: 1, name_lower: 1 }, docs: [{ account_id: 'a', name_lower: 'é' }, { account_id: 'a', name_lower: 'É' }, { account_id: 'a', name_lower: 'é' }, { account_id: 'a', name_lower: '1' }, { account_id: 'a', name_lower: 1 }] },
  { name: 'ObjectId and its hex string', shape: 'unique:json-alike', key: { a: 1 }, docs: [{ a: oid.toHexString() }, { a: oid }] },
  { name: 'a date and its milliseconds', shape: 'unique:json-alike', key: { a: 1 }, docs: [{ a: new Date(5000) }, { a: new Int32(5000) }] },
  { name: 'booleans and numbers', shape: 'unique:types', key: { a: 1 }, docs: [{ a: true }, { a: new Int32(1) }, { a: false }, { a: new Int32(0) }, { a: true }] },
  { name: 'objects', shape: 'unique:types', key: { a: 1 }, docs: [{ a: { x: 1 } }, { a: { x: 1 } }, { a: { x: 2 } }] },
];

describe('the patched FerretDB answers as FerretDB 1.24.2 does', () => {
  it('unique indexes: every insert, update, and index built over duplicates', async () => {
    let n = 0;
    for (const c of UNIQUE_CASES) {
      const coll = `unique_${n++}`;
      await check(c.name, c.shape, (db) => db.collection(coll).createIndex(c.key, { unique: true, name: 'u' }));
      for (const [i, doc] of c.docs.entries()) await check(`${c.name}: insert #${i}`, c.shape, (db) => db.collection(coll).insertOne({ _id: `d${i}`, ...doc } as Document));
      await check(`${c.name}: stored`, c.shape, all(coll));
      // an update into a duplicate: each stored document takes the first one's indexed fields
      const fields = Object.keys(c.key as Document);
      for (const [i, doc] of c.docs.entries()) {
        if (i === 0) continue;
        const set = Object.fromEntries(fields.filter((f) => f in c.docs[0]!).map((f) => [f, c.docs[0]![f]]));
        const unset = Object.fromEntries(fields.filter((f) => !(f in c.docs[0]!)).map((f) => [f, '']));
        if (!Object.keys(set).length && !Object.keys(unset).length) continue;
        const update = { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
        await check(`${c.name}: update #${i} ${JSON.stringify(serialize(doc))} into #0`, c.shape, (db) => db.collection(coll).updateOne(q({ _id: `d${i}` }), update));
      }
      await check(`${c.name}: stored after updates`, c.shape, all(coll));
      // the same documents inserted first, then the unique index built over them
      const later = `${coll}_later`;
      await check(`${c.name}: unordered insertMany`, c.shape, (db) => db.collection(later).insertMany(c.docs.map((d, i) => ({ _id: `d${i}`, ...d }) as Document), { ordered: false }));
      await check(`${c.name}: index built over them`, 'unique:build-over-duplicates', (db) => db.collection(later).createIndex(c.key, { unique: true, name: 'u' }));
      // and the equality on the index (the patched build pushes it down)
      for (const [i, doc] of c.docs.entries()) {
        const filter = Object.fromEntries(fields.map((f) => [f, f in doc ? doc[f] : null]));
        await check(`${c.name}: find #${i}`, c.shape, async (db) => unordered(await db.collection(coll).find(filter).toArray()));
        await check(`${c.name}: count #${i}`, c.shape, async (db) => Number(await db.collection(coll).countDocuments(filter)));
      }
    }
    expect(report(differences)).toEqual([]);
  });

  it('a seeded random run of the queries, updates and deletes Slipway makes', async () => {
    differences.length = 0;
    const random = mulberry32(0x5eed);
    const coll = 'random';
    const indexes: [IndexSpecification, { unique?: boolean; name: string }][] = [
      [{ account_id: 1, name_lower: 1 }, { unique: true, name: 'account_name_unique' }],
      [{ account_id: 1, _id: -1 }, { name: 'account_docs' }],
      [{ account_id: 1, created_at: 1, _id: 1 }, { name: 'account_by_age' }],
      [{ project_id: 1, environment: 1, status: 1 }, { name: 'project_environment_status' }],
      [{ expires_at: 1 }, { name: 'expires_at' }],
      [{ n: 1 }, { name: 'n' }],
    ];
    for (const [key, options] of indexes) await check(`index ${options.name}`, 'index', (db) => db.collection(coll).createIndex(key, options));

    const gen = generator(random);
    // a few hundred documents, some refused by the unique index
    for (let i = 0; i < 250; i++) {
      const doc = gen.doc(i);
      await check(`insert ${i}`, 'insert', (db) => db.collection(coll).insertOne(doc));
    }
    await check('stored', 'find:all', all(coll));

    for (let i = 0; i < 300; i++) {
      const op = gen.op(i, coll);
      await check(`op ${i}: ${op.label}`, op.shape, op.run);
      if (!op.write) continue;
      // A write of the first of several matches may take another document on the reference (MongoDB
      // leaves it open): what is stored then is compared between the builds only, and the reference
      // catches up, as it does after any write it answered differently.
      const firstOfSeveral = op.shape.startsWith('first:');
      const same = await check(`op ${i}: stored after`, firstOfSeveral ? 'first:stored' : 'find:all', all(coll));
      if (!same || firstOfSeveral) await resyncReference(coll);
    }
    expect(report(differences)).toEqual([]);
  });
});

/** The differences, each on a line (the first answers in full): a write that differs makes later reads differ too. */
function report(found: Difference[]): string[] {
  return found.map((d, i) => `${d.engines}: ${d.case}` + (i < (process.env.DIFFERENTIAL_DETAILS ? 1e9 : 3) ? `\n  got  ${JSON.stringify(d.got).slice(0, 1500)}\n  want ${JSON.stringify(d.want).slice(0, 1500)}` : ''));
}

// ---------------------------------------------------------------------------------------------------
// The seeded generator

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Op {
  label: string;
  shape: string;
  write: boolean;
  run: (db: Db) => Promise<unknown>;
}

function generator(random: () => number) {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const int = (max: number) => Math.floor(random() * max);
  const accounts = ['acct_a', 'acct_b', 'acct_c', 'acct_d'];
  const names = ['alpha', 'beta', 'gamma', 'delta', 'é', 'x y', ''];
  const projects = ['proj_1', 'proj_2', 'proj_3'];
  const environments = ['production', 'staging', 'development'];
  const statuses = ['active', 'archived', 'pending'];
  const base = Date.UTC(2026, 10, 20);
  const dates = Array.from({ length: 12 }, (_, i) => new Date(base + i * 3_600_000));
  const ids: unknown[] = [];
  // strings of one shape (Slipway's ids), and a few ObjectIds
  const newId = (i: number) => (i % 17 === 0 ? new ObjectId(`5f${String(i).padStart(22, '0')}`) : `doc_${String(i).padStart(4, '0')}`);
  const number = () => pick([() => new Int32(int(5)), () => new Double(int(5)), () => Long.fromNumber(int(5)), () => new Double(int(5) + 0.5), () => new Int32(-int(3))])();
  const value = (field: string): unknown => {
    switch (field) {
      case 'account_id':
        return pick(accounts);
      case 'name_lower':
        return pick(names);
      case 'project_id':
        return pick(projects);
      case 'environment':
        return pick(environments);
      case 'status':
        return pick(statuses);
      case 'expires_at':
        return pick(dates);
      case 'created_at':
        return pick(dates);
      default:
        return number();
    }
  };

  const doc = (i: number): Document => {
    const id = newId(i);
    ids.push(id);
    const d: Document = {
      _id: id,
      // the unique index's fields are always set, as in Slipway (null now and then)
      account_id: random() < 0.05 ? null : pick(accounts),
      name_lower: pick(names),
      created_at: pick(dates),
      status: pick(statuses),
    };
    // the other indexed fields: sometimes missing or null, sometimes an array (a pushdown must not use the index then)
    const r = random();
    if (r < 0.8) d.project_id = pick(projects);
    else if (r < 0.85) d.project_id = null;
    else if (r < 0.9) d.project_id = [pick(projects), pick(projects)];
    if (random() < 0.85) d.environment = pick(environments);
    if (random() < 0.8) d.expires_at = random() < 0.1 ? null : pick(dates);
    if (random() < 0.9) d.n = number();
    return d;
  };

  const eqFilter = (): { filter: Document; shape: string } => {
    switch (int(6)) {
      case 0:
        return { filter: { account_id: pick(accounts) }, shape: 'find:eq' };
      case 1:
        return { filter: { account_id: pick(accounts), name_lower: pick(names) }, shape: 'find:eq' };
      case 2:
        return { filter: { project_id: pick(projects), environment: pick(environments), status: pick(statuses) }, shape: 'find:eq' };
      case 3:
        return { filter: { project_id: pick(projects) }, shape: 'find:eq' };
      case 4:
        return { filter: { account_id: pick(accounts), status: pick(statuses) }, shape: 'find:eq' };
      default:
        return { filter: { n: number() }, shape: 'find:eq-number' };
    }
  };
  const inFilter = (): Document =>
    pick([
      () => ({ account_id: { $in: [pick(accounts), pick(accounts)] } }),
      () => ({ _id: { $in: [pick(ids), pick(ids), pick(ids)] } }),
      () => ({ project_id: pick(projects), status: { $in: [pick(statuses), pick(statuses)] } }),
      () => ({ n: { $in: [number(), number()] } }),
    ])();
  const rangeFilter = (): Document =>
    pick([
      () => ({ expires_at: { $lt: pick(dates) } }),
      () => ({ expires_at: { $gte: pick(dates), $lt: pick(dates) } }),
      () => ({ account_id: pick(accounts), created_at: { $gt: pick(dates) } }),
      () => ({ n: { $gte: number() } }),
      () => ({ n: { $gt: number(), $lte: number() } }),
    ])();
  const orFilter = (): Document => ({ $or: [eqFilter().filter, pick([inFilter, rangeFilter])()] });
  const anyFilter = (): { filter: Document; shape: string } =>
    pick([
      eqFilter,
      () => ({ filter: inFilter(), shape: 'find:in' }),
      () => ({ filter: rangeFilter(), shape: 'find:range' }),
      () => ({ filter: { _id: pick(ids) }, shape: 'find:id' }),
      () => ({ filter: orFilter(), shape: 'find:or' }),
      () => ({ filter: {}, shape: 'find:all' }),
    ])();
  // sorts as Slipway's lists make them: ending with _id, so every order is total
  const sorts: Sort[] = [{ _id: -1 }, { _id: 1 }, { created_at: 1, _id: 1 }, { environment: 1, status: 1, _id: 1 }, { expires_at: 1, _id: 1 }, { n: -1, _id: -1 }];

  const op = (i: number, coll: string): Op => {
    const c = (db: Db): Collection<Document> => db.collection(coll);
    const kind = int(15);
    if (kind <= 2) {
      const { filter, shape } = anyFilter();
      const sort = pick(sorts);
      const skip = pick([0, 0, 1, 5, 20]);
      const limit = pick([0, 1, 5, 20]);
      return { label: `find ${str(filter)} sort ${str(sort)} skip ${skip} limit ${limit}`, shape: `${shape}+sort`, write: false, run: (db) => c(db).find(filter).sort(sort).skip(skip).limit(limit).toArray() };
    }
    if (kind === 3) {
      const { filter, shape } = anyFilter();
      return { label: `find ${str(filter)}`, shape, write: false, run: async (db) => unordered(await c(db).find(filter).toArray()) };
    }
    if (kind === 4) {
      const { filter, shape } = anyFilter();
      const limit = pick([0, 1]);
      return { label: `countDocuments ${str(filter)} limit ${limit}`, shape: `count:${shape}`, write: false, run: async (db) => Number(await c(db).countDocuments(filter, limit ? { limit } : {})) };
    }
    if (kind === 5) {
      const id = random() < 0.9 ? pick(ids) : `doc_missing_${i}`;
      return { label: `findOne _id ${str(id)}`, shape: 'find:id', write: false, run: (db) => c(db).findOne(q({ _id: id })) };
    }
    if (kind === 6) {
      const d = doc(10_000 + i);
      return { label: `insert ${str(d)}`, shape: 'insert', write: true, run: (db) => c(db).insertOne(d) };
    }
    if (kind === 7) {
      const id = pick(ids);
      const field = pick(['name_lower', 'status', 'expires_at', 'n', 'account_id']);
      const set = { [field]: value(field), updated_at: pick(dates) };
      return { label: `updateOne _id ${str(id)} $set ${str(set)}`, shape: 'update:id', write: true, run: (db) => c(db).updateOne(q({ _id: id }), { $set: set }) };
    }
    if (kind === 8) {
      const { filter, shape } = eqFilter();
      const set = { status: pick(statuses) };
      return { label: `updateMany ${str(filter)} $set ${str(set)}`, shape: `update:${shape}`, write: true, run: (db) => c(db).updateMany(filter, { $set: set }) };
    }
    if (kind === 9) {
      const id = pick(ids);
      const { filter } = eqFilter();
      const guarded = { _id: id, ...filter };
      return {
        label: `findOneAndUpdate ${str(guarded)}`,
        shape: 'update:id-guarded',
        write: true,
        run: (db) => c(db).findOneAndUpdate(q(guarded), { $set: { status: pick(statuses) }, $inc: { version: 1 } }, { returnDocument: 'after' }),
      };
    }
    if (kind === 10) {
      const id = pick(ids);
      return { label: `deleteOne _id ${str(id)}`, shape: 'delete:id', write: true, run: (db) => c(db).deleteOne(q({ _id: id })) };
    }
    if (kind === 11) {
      const filter = pick([() => ({ expires_at: { $lt: pick(dates) } }), () => ({ account_id: pick(accounts), status: pick(statuses) }), () => ({ _id: { $in: [pick(ids), pick(ids)] } })])();
      return { label: `deleteMany ${str(filter)}`, shape: 'delete:many', write: true, run: (db) => c(db).deleteMany(q(filter)) };
    }
    // the first of several matches: MongoDB takes the first in its natural order
    if (kind === 12) {
      const { filter, shape } = anyFilter();
      return { label: `findOne ${str(filter)}`, shape: `first:${shape}`, write: false, run: (db) => c(db).findOne(filter) };
    }
    if (kind === 13) {
      const { filter, shape } = eqFilter();
      const set = { name_lower: pick(names), touched: new Int32(i) };
      return { label: `updateOne ${str(filter)} $set ${str(set)}`, shape: `first:update:${shape}`, write: true, run: (db) => c(db).updateOne(filter, { $set: set }) };
    }
    const { filter, shape } = eqFilter();
    return { label: `deleteOne ${str(filter)}`, shape: `first:delete:${shape}`, write: true, run: (db) => c(db).deleteOne(filter) };
  };

  return { doc, op };
}

const str = (value: unknown) => JSON.stringify(EJSON.serialize(value, { relaxed: true }));
