import { MongoServerError } from 'mongodb';

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
export function isDuplicateKeyError(err: unknown): boolean {
  if (!(err instanceof MongoServerError)) return false;
  if (err.code === 11000) return true;
  if (err.code === POSTGRES_DEADLOCK_DETECTED) return true;
  return err.code === 1 && /UNIQUE constraint failed|conflicting key value violates exclusion constraint/.test(err.message);
}

/** PostgreSQL (behind FerretDB 2) rolled the operation back to break a deadlock; it may be run again. */
export function isDeadlock(err: unknown): boolean {
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
