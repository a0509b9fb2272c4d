import type { Context } from 'koa';

/**
 * Answers 201 Created: the new resource as the body, and its URL (`path` under the public URL, such as
 * `/v1/projects/proj_…`) in `Location`.
 */
export function sendCreated(ctx: Context, baseUrl: string, path: string, body: unknown): void {
  ctx.status = 201;
  ctx.set('Location', `${baseUrl}${path}`);
  ctx.body = body;
}
