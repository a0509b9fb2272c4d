import type { Next } from 'koa';
import type { z } from 'zod';
import { invalidRequest, notFound, validationFailed } from '../errors.ts';
import { issuesToDetails } from '../schemas/parse.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { readJsonBody } from './jsonBody.ts';

export interface RequestSchemas {
  /** Path parameters. A malformed id names nothing, so a failure here is 404 not_found. */
  params?: z.ZodType;
  /** Query string. A failure is 400 invalid_request with details. */
  query?: z.ZodType;
  /** JSON body (read here: 415, 413, 400 for a bad body). A failure is 422 validation_failed. */
  body?: z.ZodType;
  /** The body's size limit when the route's is not the usual 100 KiB (a log append takes 1 MiB: docs/product.md §10). */
  maxBodyBytes?: number;
}

/** The typed input a handler gets from `validate(schemas)`. */
export type InputOf<S extends RequestSchemas> = {
  [K in Exclude<keyof S, 'maxBodyBytes'>]: S[K] extends z.ZodType ? z.output<S[K]> : never;
};


/**
 * Checks path parameters, query and body against their schemas and puts the parsed values in
 * `ctx.input`; nothing else in the chain reads the raw request. Bodies are read only by routes that
 * declare one.
 */
export function validate<S extends RequestSchemas>(schemas: S): ApiMiddleware {
  const middleware = async (ctx: ApiContext<Partial<InputOf<S>>>, next: Next) => {
    const input: Record<string, unknown> = {};
    if (schemas.params) {
      const result = schemas.params.safeParse(ctx.params);
      if (!result.success) throw notFound();
      input.params = result.data;
    }
    if (schemas.query) {
      const result = schemas.query.safeParse(ctx.query);
      if (!result.success) throw invalidRequest('The query string is not valid.', issuesToDetails(result.error));
      input.query = result.data;
    }
    if (schemas.body) {
      const raw = await readJsonBody(ctx, schemas.maxBodyBytes);
      const result = schemas.body.safeParse(raw);
      if (!result.success) throw validationFailed(issuesToDetails(result.error));
      input.body = result.data;
    }
    ctx.input = input as Partial<InputOf<S>>;
    await next();
  };
  return documented(middleware, (op) => {
    if (schemas.params) {
      op.params = schemas.params;
      op.errors.add('not_found');
    }
    if (schemas.query) {
      op.query = schemas.query;
      op.errors.add('invalid_request');
    }
    if (schemas.body) {
      op.body = schemas.body;
      for (const code of ['invalid_request', 'payload_too_large', 'unsupported_media_type', 'validation_failed'] as const) op.errors.add(code);
    }
  });
}
