import type { Collection, Filter } from 'mongodb';

/** Ids per delete: far below SQLite's limit on bound variables, which FerretDB's delete uses one per id. */
const BATCH = 5000;

/**
 * The one way Slipway deletes more than one document (lint forbids `deleteMany` elsewhere): what matches
 * `filter`, at most BATCH documents per command. FerretDB 1.24 (SQLite) turns a delete into
 * `DELETE … WHERE _id IN (?, ?, …)` with every matching id bound, and fails with "too many SQL
 * variables" past ~32,000: deleting a project with 100,000 deployments, or a sweeper that fell that far
 * behind (a long outage, a burst of expiries), would fail every time. Batching keeps them working, on
 * MongoDB too.
 *
 * Each batch's delete repeats `filter` beside the ids it found, so a document that stopped matching
 * between the read and the delete (a lease taken over, a session seen again) is left alone.
 *
 * `fixedFields`: every field `filter` names is one a document never changes once inserted (the account,
 * project or webhook it belongs to). The ids found then stay exactly what matches, and each delete names
 * the ids alone: the primary key, which every engine answers at its fastest. On PostgreSQL + DocumentDB,
 * 5,000 ids beside a project's filter took 1.5–2.8 s a batch (its planner takes the project's index and
 * tests every id against each of the project's documents), the ids alone 0.5 s; a project's 100,000
 * deployments are deleted in 10 s instead of 77.
 */
export async function deleteInBatches<T extends { _id: string }>(collection: Collection<T>, filter: Filter<T>, options: { fixedFields?: boolean } = {}): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await collection.find(filter, { projection: { _id: 1 } }).limit(BATCH).toArray()).map((d) => d._id);
    if (ids.length === 0) return removed;
    // An `_id` condition of the filter holds for these ids for good (`_id` never changes), so the ids
    // take its place: one top-level `_id $in`, which the embedded database answers from its index.
    const byIds = { _id: { $in: ids } } as Filter<T>;
    const { deletedCount } = await collection.deleteMany(options.fixedFields ? byIds : ({ ...filter, ...byIds } as Filter<T>));
    removed += deletedCount;
    if (ids.length < BATCH) return removed;
  }
}
