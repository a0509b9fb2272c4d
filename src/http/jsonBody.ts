import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { invalidRequest, payloadTooLarge, unsupportedMediaType } from '../errors.ts';

/** docs/product.md §6: request bodies are at most 100 KiB. */
export const MAX_BODY_BYTES = 100 * 1024;

/** The request stream, decompressed as its Content-Encoding says (none, gzip, deflate, br). */
function decodedStream(ctx: Context): Readable {
  const encoding = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
  switch (encoding) {
    case 'identity':
      return ctx.req;
    case 'gzip':
    case 'x-gzip':
      return ctx.req.pipe(zlib.createGunzip());
    case 'deflate':
      return ctx.req.pipe(zlib.createInflate());
    case 'br':
      return ctx.req.pipe(zlib.createBrotliDecompress());
    default:
      throw unsupportedMediaType(`Content-Encoding ${encoding} is not supported.`);
  }
}

/**
 * Strict UTF-8: an invalid byte sequence is refused instead of silently becoming U+FFFD. The BOM is
 * kept, so a body starting with one is not JSON (JSON text must not start with a BOM, RFC 8259 §8.1).
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How deeply arrays and objects may nest in a request body (docs/api.md, "The HTTP edge"). */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays and objects deeper than `max`. One pass over the characters,
 * skipping strings, before the text is parsed: a deep body costs no more than a flat one of its size.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * True when every string (and key) in `value` is well-formed Unicode: no lone surrogate such as
 * `"\ud800"`. Walks with a stack of its own, never recursion over what the client sent.
 */
function wellFormed(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return false;
    } else if (Array.isArray(value)) for (const item of value as unknown[]) stack.push(item);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (!k.isWellFormed()) return false;
        stack.push(v);
      }
    }
  }
  return true;
}

/**
 * Reads the JSON body: absent or empty → `{}` (so the schema reports what is missing); present but not
 * `application/json` → 415; over 100 KiB (or the route's own `limit`) → 413; malformed, not an object/array, nested more than
 * MAX_JSON_DEPTH deep, not valid UTF-8 or holding a lone surrogate (raw or as a `\ud800`-style escape) → 400. Also sets `ctx.request.body`.
 */
export async function readJsonBody(ctx: Context, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!ctx.get('Transfer-Encoding') && !ctx.request.length) return {};
  if (!ctx.request.is('application/json')) throw unsupportedMediaType();
  const charset = ctx.request.charset;
  if (charset && !/^utf-?8$/i.test(charset)) throw unsupportedMediaType('The request body must be UTF-8 application/json.');
  const stream = decodedStream(ctx);
  let bytes: Buffer;
  try {
    // The declared length is checked only for an uncompressed body (a compressed one inflates past it).
    bytes = await getRawBody(stream, { limit, length: stream === ctx.req ? ctx.request.length : null });
  } catch (err) {
    const { type } = err as { type?: string };
    if (type === 'entity.too.large') throw payloadTooLarge(limit);
    throw invalidRequest('The request body could not be read.');
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidRequest('The request body is not valid UTF-8.');
  }
  const request = ctx.request as { body?: unknown };
  if (!text) return (request.body = {});
  if (!/^[ \t\r\n]*[{[]/.test(text)) throw invalidRequest('The request body is not valid JSON (an object is expected).');
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw invalidRequest(`The request body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidRequest('The request body is not valid JSON (an object is expected).');
  }
  if (!wellFormed(parsed)) throw invalidRequest('The request body holds a lone surrogate (e.g. "\\ud800"): strings must be valid Unicode.');
  request.body = parsed;
  return parsed;
}
