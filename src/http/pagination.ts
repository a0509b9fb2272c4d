import type { Context } from 'koa';
import { z } from 'zod';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** A query-string integer: digits only (no signs, exponents or decimals), then range-checked. */
function integerParam(name: string, min: number, max: number, fallback: number, description: string) {
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

/** One page of a list as repositories receive it. */
export interface PageRequest {
  page: number;
  per_page: number;
}

/**
 * Answers `{data, pagination}` with an RFC 8288 Link header (first, prev, next, last). A page past the end
 * has empty data and the true total.
 */
export function sendPage<T>(ctx: Context, baseUrl: string, data: T[], total: number, { page, per_page: perPage }: PageRequest): void {
  const last = Math.max(1, Math.ceil(total / perPage));
  const link = (n: number, rel: string) => {
    const url = new URL(ctx.path, baseUrl);
    for (const [key, value] of Object.entries(ctx.query)) {
      if (key === 'page' || key === 'per_page') continue;
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) url.searchParams.append(key, v);
    }
    url.searchParams.set('page', String(n));
    url.searchParams.set('per_page', String(perPage));
    return `<${url.href}>; rel="${rel}"`;
  };
  const links = [link(1, 'first')];
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(link(page + 1, 'next'));
  links.push(link(last, 'last'));
  ctx.set('Link', links.join(', '));
  ctx.body = { data, pagination: { page, per_page: perPage, total } };
}
