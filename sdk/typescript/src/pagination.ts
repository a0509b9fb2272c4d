import type { Page, PageParams } from './types.js';

/**
 * Every item of every page, fetched lazily: the next page is requested only when the loop reaches it,
 * and stopping the loop stops fetching. Starts at `params.page` (default 1).
 */
export async function* paginate<T>(fetchPage: (params: PageParams) => Promise<Page<T>>, params: PageParams = {}): AsyncGenerator<T, void, undefined> {
  let page = params.page ?? 1;
  for (;;) {
    const result = await fetchPage({ ...params, page });
    yield* result.data;
    const { per_page: perPage, total } = result.pagination;
    if (result.data.length === 0 || page * perPage >= total) return;
    page += 1;
  }
}
