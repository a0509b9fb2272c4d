import type { Context } from 'koa';
import type { PageRequest } from '../domain/page.ts';




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
