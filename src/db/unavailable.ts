import { MongoBulkWriteError, MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerClosedError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

/**
 * Node's codes for a connection that failed or was ended under a request: a database that crashed or
 * restarted mid-write ("This socket has been ended by the other party" is EPIPE), refused, reset or
 * timed out. The driver wraps most of them in MongoNetworkError, but not every path does.
 */
const CONNECTION_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTCONN',
  'EAI_AGAIN',
  'ERR_SOCKET_CLOSED',
  'ERR_SOCKET_CLOSED_BEFORE_CONNECTION',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

/**
 * Server answers that mean "not now" rather than "no": shutting down, interrupted at shutdown, not the
 * primary (a failover in progress), or the server's own network trouble. MongoDB's error codes.
 */
const NOT_NOW_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

const DRIVER_UNAVAILABLE = [MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError, MongoNotConnectedError, MongoServerClosedError];

/**
 * Whether `err` (or an error it wraps, through `cause` or a bulk write's `errorResponse`) says the
 * database could not be reached or could not answer now: every such failure answers 503 with
 * Retry-After, never 500 (src/http/errorHandler.ts, the dashboard, the authorization server). A refusal
 * the database did answer (a duplicate key, a bad query) is not one.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (DRIVER_UNAVAILABLE.some((kind) => current instanceof kind)) return true;
    if (current instanceof MongoServerError && NOT_NOW_CODES.has(Number(current.code))) return true;
    if (current instanceof MongoError && current.hasErrorLabel('ResetPool')) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause ?? wrappedDriverError(current);
  }
  return false;
}

/**
 * The driver error a bulk write error carries as its `errorResponse` when the write failed before the
 * database answered (an insertMany whose connection closed: MongoBulkWriteError around a MongoNetworkError).
 */
function wrappedDriverError(err: object): unknown {
  return err instanceof MongoBulkWriteError && err.errorResponse instanceof Error ? err.errorResponse : undefined;
}

/** What a request that met an unavailable database is told, and when to retry (seconds). */
export const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable. Try again shortly.';
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
