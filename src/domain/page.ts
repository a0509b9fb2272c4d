/** One page of a list, as services and repositories receive it (`?page`, `?per_page`; docs/product.md §6). */
export interface PageRequest {
  page: number;
  per_page: number;
}

/** One page of records and the total over every page. */
export interface PageResult<T> {
  items: T[];
  /** Every matching record, not just this page's. */
  total: number;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
