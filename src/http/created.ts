import type { Context } from 'koa';
import type { ZodType } from 'zod';
import type { RouteDoc } from './apiRouter.ts';

/**
 * Answers 201 Created: the new resource as the body, and its URL (`path` under the public URL, such as
 * `/v1/projects/proj_…`) in `Location`.
 */
export function sendCreated(ctx: Context, baseUrl: string, path: string, body: unknown): void {
  ctx.status = 201;
  ctx.set('Location', `${baseUrl}${path}`);
  ctx.body = body;
}

/** A creating route's success as documented: 201, the new resource, its URL in `Location` (as `sendCreated` answers). */
export function created(description: string, schema: ZodType, location: string): RouteDoc['success'] {
  return { status: 201, description, schema, headers: { Location: { description: location, schema: { type: 'string' } } } };
}
