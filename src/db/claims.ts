import { randomBytes } from 'node:crypto';
import { MongoBulkWriteError, MongoServerError, type Collection, type Filter, type OptionalUnlessRequiredId } from 'mongodb';
import { deleteInBatches } from './deleteInBatches.ts';

/*
 * Claims: how Slipway makes something happen exactly once across instances (a single-use token, a
 * lease, a quota slot, a name), written once here. Everything else in src/ uses these functions and
 * never reads a duplicate-key error itself (lint forbids it).
 *
 * Why a unique insert: it is the one write FerretDB 1.24 (SQLite) performs atomically. There a
 * conditional update is a read-modify-write of the whole document, so concurrent compare-and-set
 * updates can all "match", `$inc`s get lost and `findOneAndDelete` hands one document to several
 * callers. An insert of a unique key (the `_id`, or a unique index) lets exactly one of any number of
 * concurrent writers in, on every instance, on FerretDB 1.24 as on MongoDB and DocumentDB. So a claim
 * is a document whose key says what is claimed; the writer that inserted it holds it, and every
 * other writer is told so by the database's refusal. Updates made after a claim are made only by its
 * holder, so none races another.
 */

/**
 * PostgreSQL's `deadlock_detected` (SQLSTATE 40P01) as FerretDB 2 passes it on from DocumentDB: the
 * SQLSTATE packed into an integer as PostgreSQL's MAKE_SQLSTATE does (6 bits a character).
 */
const POSTGRES_DEADLOCK_DETECTED = 16908292;

/**
 * Whether a single-document write (insert, update, replace, findAndModify; upserts included) failed on a
 * unique index. Every caller writes one document. MongoDB says so with code 11000 everywhere. The other
 * engines we run on say it otherwise for some writes, and those forms are recognised too:
 * - FerretDB 1.24 (SQLite backend), for an update: InternalError (code 1), SQLite's `UNIQUE constraint failed`.
 * - FerretDB 2 on DocumentDB (PostgreSQL), for a findAndModify: InternalError, PostgreSQL's `conflicting
 *   key value violates exclusion constraint` (DocumentDB keeps a unique index as an exclusion constraint;
 *   its insert, update and replace answer 11000).
 * - FerretDB 2 on DocumentDB, when writes of the same key arrive at the same moment: `deadlock detected`.
 *   An exclusion constraint makes each such write wait for the others still in flight, so two of them
 *   wait for each other and PostgreSQL rolls one back. That one is the loser MongoDB would have answered
 *   11000: the key is another in-flight write's, and of such writes one always goes on (each deadlock
 *   rolls back one write of the cycle, and the last one waits for no one). A single-document write takes
 *   no other lock that could close a cycle (its row lock is only waited for by writes of the same
 *   document, which hold nothing it waits for), so for these writes the deadlock means exactly that.
 */
function isDuplicateKeyError(err: unknown): boolean {
  if (!(err instanceof MongoServerError)) return false;
  if (err.code === 11000) return true;
  if (err.code === POSTGRES_DEADLOCK_DETECTED) return true;
  return err.code === 1 && /UNIQUE constraint failed|conflicting key value violates exclusion constraint/.test(err.message);
}

/** PostgreSQL (behind FerretDB 2) rolled the operation back to break a deadlock; it may be run again. */
function isDeadlock(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === POSTGRES_DEADLOCK_DETECTED;
}

/**
 * Runs an idempotent operation again when PostgreSQL broke a deadlock by rolling it back, up to
 * `attempts` times, each after a random pause. Index creation needs it: two instances starting at once
 * create the same indexes, which DocumentDB does under locks that can wait for each other (MongoDB and
 * FerretDB 1.24 never report a deadlock, so there this is one call).
 */
export async function retryDeadlocks<T>(operation: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
      // A random pause that grows with each attempt, so that two instances fall out of step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 100 * attempt));
    }
  }
}

/**
 * Inserts `doc` unless its `_id` (or another unique key of the collection) is taken: true when this
 * caller inserted it, false when someone, on any instance, had. Of any number of concurrent callers
 * with the same key exactly one gets true.
 */
export async function claimOnce<T extends { _id: string }>(collection: Collection<T>, doc: NoInfer<OptionalUnlessRequiredId<T>>): Promise<boolean> {
  return await writeUnique(
    async () => {
      await collection.insertOne(doc);
      return true;
    },
    () => false,
  );
}

/**
 * Inserts `claim` and, only if this caller inserted it, `follows` after it, in one ordered insert of one
 * collection (one round trip): true when this caller holds the claim (and `follows` were written), false
 * when someone, on any instance, had taken it (then nothing was written: an ordered insert stops at its
 * first failure). Of any number of concurrent callers with the same key exactly one gets true. A conflict
 * on one of `follows` (never expected: they carry fresh keys) is thrown, with the claim kept.
 */
export async function claimWith<T extends { _id: string }>(collection: Collection<T>, claim: NoInfer<OptionalUnlessRequiredId<T>>, follows: NoInfer<OptionalUnlessRequiredId<T>>[]): Promise<boolean> {
  try {
    await collection.insertMany([claim, ...follows], { ordered: true });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err) && firstFailedIndex(err) === 0) return false;
    throw err;
  }
}

/** The index of the first document an ordered insert refused (0 when the error names none). */
function firstFailedIndex(err: unknown): number {
  if (err instanceof MongoBulkWriteError) {
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    return Math.min(...errors.map((e) => e.index));
  }
  return 0;
}

/**
 * Whether one document's failure in a multi-document insert (a write error of an insertMany) was its
 * unique key taken: the single-document forms of isDuplicateKeyError, read from the write error.
 */
function isDuplicateWriteError(e: { code?: number; errmsg?: string }): boolean {
  if (e.code === 11000 || e.code === POSTGRES_DEADLOCK_DETECTED) return true;
  return e.code === 1 && /UNIQUE constraint failed|conflicting key value violates exclusion constraint/.test(e.errmsg ?? '');
}

/**
 * Claims many at once, as many callers of claimOnce would (group commit): each call waits for its own
 * answer, true for the one caller (on any instance) that inserted its document. A call made while no
 * insert is in flight is sent after one turn of the event loop, with the calls made in that turn; calls
 * made while one is in flight wait for it and go together (again after one turn), in one unordered
 * insert of up to `maxBatch` documents, where each document's unique-key refusal answers its caller
 * only. So nothing waits longer than one insert and a turn, and under load many claims cost one round
 * trip (the turn: 3.1 DPoP proofs an insert at 10 connections, 2.6 without it). Two calls with the same
 * key in one batch: one wins, as with claimOnce.
 */
export function batchedClaims<T extends { _id: string }>(collection: Collection<T>, maxBatch = 256): (doc: NoInfer<OptionalUnlessRequiredId<T>>) => Promise<boolean> {
  type Waiting = { doc: OptionalUnlessRequiredId<T>; resolve: (won: boolean) => void; reject: (err: unknown) => void };
  let queue: Waiting[] = [];
  let sending = false;
  async function send(): Promise<void> {
    sending = true;
    while (queue.length) {
      // One turn of the event loop: requests whose proofs are being checked in it join this insert.
      await new Promise((resolve) => setImmediate(resolve));
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      try {
        const taken = await insertEach(collection, batch.map((w) => w.doc));
        batch.forEach((w, i) => w.resolve(!taken.has(i)));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    sending = false;
  }
  return (doc) =>
    new Promise<boolean>((resolve, reject) => {
      queue.push({ doc, resolve, reject });
      if (!sending) void send();
    });
}

/** One unordered insert of `docs`: the indexes of those whose unique key was taken. Any other failure is thrown. */
async function insertEach<T extends { _id: string }>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<Set<number>> {
  try {
    await collection.insertMany(docs, { ordered: false });
    return new Set();
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    if (!errors.length || !errors.every((e) => isDuplicateWriteError(e))) throw err;
    return new Set(errors.map((e) => e.index));
  }
}

/**
 * Runs one single-document write whose unique-index conflict is an answer, not an error: the write's
 * result, or `ifTaken`'s when the key is someone else's (a name already used, an upsert another
 * instance inserted first). Any other failure is thrown as it came.
 */
export async function writeUnique<T, A>(write: () => Promise<T>, ifTaken: () => A | Promise<A>): Promise<T | A> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  return await ifTaken();
}

/** A claim that ends at `expires_at` (removed by a sweep some time after). */
export interface EndingClaim {
  _id: string;
  expires_at: Date;
}

/**
 * Removes, in batches (deleteInBatches), the claims that ended before `before`: a claim is kept through
 * the whole moment it ends at.
 */
export async function sweepEnded<T extends EndingClaim>(collection: Collection<T>, before: Date): Promise<number> {
  return await deleteInBatches(collection, { expires_at: { $lt: before } } as Filter<T>);
}

/** Claims of one kind in one collection, swept `keepMs` after they end. */
abstract class KeptClaims<T extends EndingClaim> {
  readonly collection: Collection<T>;
  protected readonly keepMs: number;
  constructor(collection: Collection<T>, keepMs: number) {
    this.collection = collection;
    this.keepMs = keepMs;
  }
}

/**
 * Leases with an end: `_id` is what is leased, held by whoever inserted it (claimOnce) until it is
 * released or its end passes. A holder that died leaves a lease that stays taken; once its end has
 * passed, one of the instances that find it so takes it over. Ended leases are swept `keepMs` after
 * their end.
 */
export class Leases extends KeptClaims<EndingClaim> {
  /** True when this caller holds the lease now, until `now + ttlMs`. */
  async tryClaim(id: string, ttlMs: number, now = new Date()): Promise<boolean> {
    return await claimOnce(this.collection, { _id: String(id), expires_at: new Date(now.getTime() + ttlMs) });
  }

  /**
   * Takes over a lease whose holder died (its `expires_at` passed). Of all who found it ended, one
   * wins: the one that inserts the ticket for that very lease (`${id}~<its end>`, a unique insert, as
   * a delete filtered on the old value is not atomic on FerretDB 1.24). The winner removes the ended
   * lease and claims it anew, which it may still lose to a plain claim made in between: one holder
   * either way. The ticket ends with the new lease and is swept like one.
   */
  async takeOver(id: string, expired: EndingClaim, ttlMs: number, now = new Date()): Promise<boolean> {
    if (expired.expires_at > now) return false;
    if (!(await this.tryClaim(`${id}~${expired.expires_at.getTime()}`, ttlMs, now))) return false;
    await this.collection.deleteOne({ _id: String(id), expires_at: expired.expires_at });
    return await this.tryClaim(id, ttlMs, now);
  }

  /** True when this caller now holds the lease: a fresh one, or one whose holder died (takeOver). */
  async claimOrTakeOver(id: string, ttlMs: number, now = new Date()): Promise<boolean> {
    if (await this.tryClaim(id, ttlMs, now)) return true;
    const lease = await this.find(id);
    return lease !== null && lease.expires_at <= now && (await this.takeOver(id, lease, ttlMs, now));
  }

  async find(id: string): Promise<EndingClaim | null> {
    return await this.collection.findOne({ _id: String(id) });
  }

  /**
   * Ends a lease. With `expiresAt` (the end it was claimed with), only that very lease: a holder that
   * outlived it (a stalled process) does not end the lease of whoever took over since.
   */
  async release(id: string, expiresAt?: Date): Promise<void> {
    await this.collection.deleteOne({ _id: String(id), ...(expiresAt ? { expires_at: expiresAt } : {}) });
  }

  /** Leases (and take-over tickets) left by instances that died, `keepMs` after they ended. */
  async sweep(now = new Date()): Promise<number> {
    return await sweepEnded(this.collection, new Date(now.getTime() - this.keepMs));
  }
}

/** One generation of a named lease (GenerationLeases). */
export interface GenerationDoc {
  /** `${name}#${generation}` */
  _id: string;
  name: string;
  generation: number;
  token: string;
  expires_at: Date;
  released_at: Date | null;
}

/** A generation held: what its holder passes to release it. */
export interface Generation {
  name: string;
  generation: number;
  token: string;
}

/** How many ended generations one sweep looks at. */
const SWEEP_BATCH = 1000;

/**
 * Named leases that are taken again and again (a lock): generation N of a name is `name#N`; taking the
 * name means inserting N+1 (claimOnce) after seeing N released or ended, and of racers inserting the
 * same N+1 exactly one wins. Only the holder ever updates its own generation (to release it), so no
 * update races another. A generation never released ends at the `ttlMs` it was taken with.
 */
export class GenerationLeases extends KeptClaims<GenerationDoc> {
  /** The name's next generation, or null while someone else holds an unreleased, unended one. */
  async tryAcquire(name: string, ttlMs: number, now = new Date()): Promise<Generation | null> {
    const latest = await this.collection.findOne({ name: String(name) }, { sort: { generation: -1 } });
    if (latest && latest.released_at === null && latest.expires_at > now) return null;
    const generation = (latest?.generation ?? 0) + 1;
    const token = randomBytes(16).toString('base64url');
    const doc = { _id: `${name}#${generation}`, name, generation, token, expires_at: new Date(now.getTime() + ttlMs), released_at: null };
    return (await claimOnce(this.collection, doc)) ? { name, generation, token } : null;
  }

  async release(lease: Generation, now = new Date()): Promise<void> {
    await this.collection.updateOne({ _id: `${lease.name}#${lease.generation}`, token: lease.token }, { $set: { released_at: now } });
  }

  /**
   * Removes generations that ended `keepMs` ago and have a newer generation: the newest of a name is
   * kept, so the next acquirer always continues its numbering. Looks at up to SWEEP_BATCH of them per
   * call (the next sweep goes on).
   */
  async sweep(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.keepMs);
    const old = await this.collection.find({ expires_at: { $lte: cutoff } }, { projection: { name: 1, generation: 1 } }).limit(SWEEP_BATCH).toArray();
    const ids: string[] = [];
    for (const doc of old) {
      if (await this.collection.findOne({ name: doc.name, generation: { $gt: doc.generation } }, { projection: { _id: 1 } })) ids.push(doc._id);
    }
    if (ids.length === 0) return 0;
    return await deleteInBatches(this.collection, { _id: { $in: ids }, expires_at: { $lte: cutoff } });
  }
}
