import { MongoServerError } from 'mongodb';

/**
 * Whether a write failed on a unique index. MongoDB says so with code 11000 everywhere; FerretDB 1.24
 * (SQLite backend) does for inserts, but reports an update that violates a unique index as
 * InternalError (code 1) with SQLite's message, so that form is recognised too.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if (!(err instanceof MongoServerError)) return false;
  if (err.code === 11000) return true;
  return err.code === 1 && /UNIQUE constraint failed/.test(err.message);
}
