import type { Context } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { invalidRequest, payloadTooLarge, unsupportedMediaType } from '../errors.ts';

/** PRODUCT §6: request bodies are at most 100 KiB. */
export const MAX_BODY_BYTES = 100 * 1024;

const parse = koaBody({
  json: true,
  jsonLimit: MAX_BODY_BYTES,
  jsonStrict: true,
  text: false,
  urlencoded: false,
  multipart: false,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError(err) {
    const { status, type } = err as Error & { status?: number; type?: string };
    if (status === 413 || type === 'entity.too.large') throw payloadTooLarge(MAX_BODY_BYTES);
    if (status === 415 || type === 'charset.unsupported' || type === 'encoding.unsupported')
      throw unsupportedMediaType('The request body must be UTF-8 application/json.');
    throw invalidRequest('The request body is not valid JSON (an object is expected).');
  },
});

/**
 * Reads the JSON body: absent or empty → `{}` (so the schema reports what is missing); present but not
 * `application/json` → 415; over 100 KiB → 413; malformed or not an object/array → 400.
 */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  if (!ctx.get('Transfer-Encoding') && !ctx.request.length) return {};
  if (!ctx.request.is('application/json')) throw unsupportedMediaType();
  const charset = ctx.request.charset;
  if (charset && !/^utf-?8$/i.test(charset)) throw unsupportedMediaType('The request body must be UTF-8 application/json.');
  let parsed: unknown;
  await parse(ctx, async () => {
    parsed = ctx.request.body;
  });
  return parsed ?? {};
}
