import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Middleware } from 'koa';
import type { Config } from '../config/index.ts';
import type { ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';

/**
 * The HTTP edge: what happens before a request reaches Koa. Node's parser refuses some requests itself
 * (headers over 16 KiB, malformed request lines, a client too slow to send its headers or body); by
 * default it answers them with an empty body. Here they get the API's JSON error shape too.
 */

/** Timeouts for slow clients (slow-header and slow-body connections are cut), from the configuration. */
export function httpServerOptions(config: Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'>): http.ServerOptions {
  return {
    headersTimeout: config.httpHeadersTimeoutMs,
    requestTimeout: config.httpRequestTimeoutMs,
    // Node looks for expired requests only this often (default 30 s): a quarter of the headers timeout
    // (at most 1 s) keeps the cut close to the configured time.
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(config.httpHeadersTimeoutMs / 4))),
  };
}

const PARSER_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'The request headers are larger than 16 KiB.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', message: 'The request was not received in time.' },
};

const STATUS_LINE: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * `clientError` handler: a JSON error body for what Node's parser refuses, then the connection is
 * closed. Nothing of the raw request is logged (it may hold credentials).
 */
export function onClientError(logger: Logger) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    // A response already under way on this socket must not be corrupted: just close.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const known = PARSER_ERRORS[err.code ?? ''];
    const { status, code, message } = known ?? { status: 400, code: 'invalid_request' as const, message: 'The request is not valid HTTP.' };
    const requestId = randomUUID();
    logger.info({ request_id: requestId, status, parser_error: err.code }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: { code, message, status, request_id: requestId } });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_LINE[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}

/**
 * Headers that must appear once. Node keeps the first of several `Authorization` (or `Content-Type`,
 * `Host`, …) headers and silently drops the rest, so a request could be read one way by a proxy and
 * another way here: such a request is refused instead.
 */
const SINGLE_HEADERS = new Set(['authorization', 'proxy-authorization', 'content-type', 'host', 'idempotency-key']);

export function duplicatedSingleHeader(rawHeaders: string[]): string | undefined {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

/**
 * 400 `invalid_request` for a request with several of a header that must appear once. Runs first in
 * the app (after the request id); the OAuth endpoints answer in their own error format.
 */
export function singleHeaders(): Middleware {
  return async (ctx, next) => {
    const name = duplicatedSingleHeader(ctx.req.rawHeaders);
    if (!name) return await next();
    const message = `The ${name} header must be sent at most once.`;
    ctx.status = 400;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/oauth' || ctx.path.startsWith('/oauth/')) ctx.body = { error: 'invalid_request', error_description: message };
    else ctx.body = { error: { code: 'invalid_request', message, status: 400, request_id: ctx.state.requestId as string } };
  };
}
