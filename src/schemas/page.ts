import { z } from 'zod';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../domain/page.ts';

/** A query-string integer: digits only (no signs, exponents or decimals), then range-checked. */
export function integerParam(name: string, min: number, max: number, fallback: number, description: string) {
  const message = max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer ≥ ${min}` : `${name} must be an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^[0-9]{1,15}$/, message)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message))
    .optional()
    .default(fallback)
    .meta({ description, param: { schema: { type: 'integer', minimum: min, maximum: max, default: fallback } } });
}

/**
 * `?page` (≥ 1, default 1) and `?per_page` (1–100, default 20); anything else → 400 invalid_request.
 * Strict: an unknown (or misspelt) parameter is an error rather than a filter silently ignored.
 */
export const PageQuery = z.strictObject({
  page: integerParam('page', 1, 1_000_000_000, 1, 'Page number, from 1.'),
  per_page: integerParam('per_page', 1, MAX_PER_PAGE, DEFAULT_PER_PAGE, `Items per page, 1–${MAX_PER_PAGE}.`),
});
export type PageQuery = z.output<typeof PageQuery>;

export const Pagination = z
  .object({
    page: z.number().int().min(1),
    per_page: z.number().int().min(1).max(MAX_PER_PAGE),
    total: z.number().int().min(0).meta({ description: 'Number of items across all pages.' }),
  })
  .meta({ id: 'Pagination' });

/** `{data: [...], pagination}` for a list of `item`. */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ data: z.array(item), pagination: Pagination }).meta({ id });
}
