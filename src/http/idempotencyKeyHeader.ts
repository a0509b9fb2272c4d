import type { Context } from 'koa';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { invalidRequest } from '../errors.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../schemas/rules.ts';

/**
 * The `Idempotency-Key` request header: absent → undefined; present → it must be 1–255 visible ASCII
 * characters (an empty or over-long value is refused, never taken as "no key"), else 400
 * `invalid_request`. The same pattern is what the OpenAPI document states.
 */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const value = ctx.req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) throw invalidRequest('Idempotency-Key must be 1–255 visible ASCII characters.');
  return value;
}

/** The header's schema in the OpenAPI document. */
export const IDEMPOTENCY_KEY_SCHEMA: SchemaObject = { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source };
