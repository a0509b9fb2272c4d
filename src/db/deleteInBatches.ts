import type { Collection, Filter } from 'mongodb';

/** Ids per delete: far below SQLite's limit on bound variables, which FerretDB's delete uses one per id. */
const BATCH = 5000;

/**
 * Deletes what matches `filter`, at most BATCH documents per command. FerretDB 1.24 (SQLite) turns a
 * delete into `DELETE … WHERE _id IN (?, ?, …)` with every matching id bound, and fails with "too many
 * SQL variables" past ~32,000: a sweeper that fell that far behind (a long outage, a burst of expiries)
 * would fail at every run from then on. Batching keeps every sweep working, on MongoDB too.
 */
export async function deleteInBatches<T extends { _id: string }>(collection: Collection<T>, filter: Filter<T>): Promise<number> {
  let removed = 0;
  for (;;) {
    const ids = (await collection.find(filter, { projection: { _id: 1 } }).limit(BATCH).toArray()).map((d) => d._id);
    if (ids.length === 0) return removed;
    const { deletedCount } = await collection.deleteMany({ _id: { $in: ids } } as Filter<T>);
    removed += deletedCount;
    if (ids.length < BATCH) return removed;
  }
}
