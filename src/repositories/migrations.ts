import type { Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';

/** Where a database records the one-time passes it has had (`{_id: name, at}`). */
const MIGRATIONS = 'migrations';

export interface MigrationOptions {
  /**
   * At start (true): skip a pass once it has run on this database (the passes read whole collections).
   * `slipway db migrate` (false) always runs them.
   */
  once?: boolean;
}

/**
 * Runs `pass` unless `once` and it is marked done on this database, then marks it (a claim: by this
 * run, an earlier one, or another instance starting at the same time, whichever came first). A pass
 * must be idempotent and safe beside the same pass on another instance: both may run it.
 */
export async function oneTimePass(db: Db, name: string, { once = false }: MigrationOptions, pass: () => Promise<number>): Promise<number> {
  const markers = db.collection<{ _id: string; at: Date }>(MIGRATIONS);
  if (once && (await markers.countDocuments({ _id: name }, { limit: 1 })) > 0) return 0;
  const done = await pass();
  await claimOnce(markers, { _id: name, at: new Date() });
  return done;
}
