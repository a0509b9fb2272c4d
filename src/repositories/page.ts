import type { Collection, Document, Filter, Sort, WithId } from 'mongodb';
import { MAX_PER_PAGE, type PageRequest, type PageResult } from '../domain/page.ts';
import { invalidRequest } from '../errors.ts';


/**
 * The routes validate paging first; this refuses anything else too, because a non-integer or huge
 * number must not reach `skip`/`limit`.
 */
export function assertPageRequest(page: PageRequest): void {
  if (!Number.isSafeInteger(page.page) || page.page < 1) throw invalidRequest('page must be an integer of at least 1.');
  if (!Number.isSafeInteger(page.per_page) || page.per_page < 1 || page.per_page > MAX_PER_PAGE)
    throw invalidRequest(`per_page must be an integer from 1 to ${MAX_PER_PAGE}.`);
}

/** A page past the end has no items and the true total. */
export async function findPage<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  sort: Sort,
  page: PageRequest,
): Promise<PageResult<WithId<T>>> {
  assertPageRequest(page);
  const [items, total] = await Promise.all([
    collection
      .find(filter)
      .sort(sort)
      .skip((page.page - 1) * page.per_page)
      .limit(page.per_page)
      .toArray(),
    collection.countDocuments(filter),
  ]);
  return { items, total };
}
