import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from '../errors.ts';

/** Zod issues as `[{field, message}]`; unknown keys become one detail each. Values are never echoed. */
export function issuesToDetails(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ field: base ? `${base}.${key}` : key, message: 'is not a recognised field' });
    } else {
      details.push({ field: base || '(body)', message: issue.message });
    }
  }
  return details;
}

/**
 * Input that did not come through a /v1 route (a dashboard form, a CLI command) checked against the
 * same schema the route uses: the parsed value, or 422 `validation_failed` with the same details.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(issuesToDetails(result.error));
  return result.data;
}
