import { SERVER_ERROR_CODES } from './generated/meta.js';

/** One problem with one field of the request (`details` of a 422 `validation_failed`). */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** The server's codes (from the OpenAPI document) and the client's own. */
export const ErrorCode = {
  ...SERVER_ERROR_CODES,
  /** No response within the per-call or client `timeout` (or the caller's `AbortSignal.timeout`). */
  Timeout: 'timeout',
  /** The caller's `AbortSignal` ended the call (its reason is the error's `cause`). */
  RequestAborted: 'request_aborted',
  /** No response: DNS, refused or reset connection, TLS. */
  NetworkError: 'network_error',
  /** A success response whose body was not JSON (e.g. a captive portal or a misrouted proxy). */
  InvalidResponse: 'invalid_response',
  /** A webhook delivery whose `Slipway-Signature` does not verify (`WebhookSignatureError`). */
  InvalidSignature: 'invalid_signature',
} as const;

/**
 * A `code` an error can have: one of `ErrorCode`, or `http_<status>` for an error response that is
 * not Slipway's JSON (e.g. a proxy's HTML 502 is `http_502`). OAuth errors carry the OAuth `error`.
 */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode] | `http_${number}`;

interface ErrorInit {
  code: string;
  status: number | null;
  message: string;
  requestId?: string | null;
  details?: ErrorDetail[] | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * Every error the client raises. API errors carry the server's `code`, `status`, `message`,
 * `request_id` (as `requestId`) and `details`; when no response arrived (timeout, abort, network)
 * `status` is null. Catch a subclass (`NotFoundError`, `RateLimitError`, …) or compare `code` with
 * `ErrorCode.NotFound` etc.
 */
export class SlipwayError extends Error {
  /** Stable machine-readable code, e.g. `not_found`, `validation_failed`, `timeout`, `http_502` (see `ErrorCode`). */
  readonly code: ErrorCode | (string & {});
  /** HTTP status; null when no response arrived. */
  readonly status: number | null;
  /** The server's `X-Request-Id` for this request (quote it in support requests). */
  readonly requestId: string | null;
  /** Field problems of a 422. */
  readonly details: ErrorDetail[] | undefined;
  /** Response headers, when there was a response. */
  readonly headers: Headers | undefined;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.headers = init.headers;
  }
}

/** 400 `invalid_request`. */
export class BadRequestError extends SlipwayError {}
/** 401 `unauthorized` / `invalid_token`. */
export class AuthenticationError extends SlipwayError {}
/** 403 `insufficient_scope` / `forbidden`. */
export class PermissionDeniedError extends SlipwayError {}
/** 404 `not_found`. */
export class NotFoundError extends SlipwayError {}
/** 409 `conflict` / `invalid_transition` / `project_not_active`. */
export class ConflictError extends SlipwayError {}
/** 422 `validation_failed` (see `details`) / `idempotency_key_reused`. */
export class ValidationError extends SlipwayError {}
/** 429 `rate_limited`, after the configured retries. */
export class RateLimitError extends SlipwayError {
  /** Seconds the server asked to wait (`Retry-After`), if it said. */
  readonly retryAfter: number | undefined;
  constructor(init: ErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}
/** 5xx: `internal_error`, `service_unavailable` (503, after the configured retries). */
export class ServerError extends SlipwayError {}
/** No usable response: `network_error` (DNS, refused or reset connection), `invalid_response` (after the configured retries). */
export class ConnectionError extends SlipwayError {}
/** `timeout`: no response within the `timeout` (after the configured retries), or the caller's `AbortSignal.timeout`. */
export class TimeoutError extends ConnectionError {}
/** `request_aborted`: the caller's `AbortSignal` ended the call; `cause` is the signal's reason. */
export class RequestAbortedError extends SlipwayError {}

/** Errors of the OAuth helper (authorization response, token endpoint). */
export class OAuthError extends SlipwayError {}

const BY_STATUS: Record<number, typeof SlipwayError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
};

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

/** The typed error for an error response (its JSON body already read, or undefined if it had none). */
export function errorFromResponse(response: Response, body: unknown, retryAfter?: number): SlipwayError {
  const error = (body as ErrorBody | undefined)?.error;
  const init: ErrorInit = {
    code: typeof error?.code === 'string' ? error.code : `http_${response.status}`,
    status: response.status,
    message: typeof error?.message === 'string' ? error.message : `HTTP ${response.status} ${response.statusText}`.trim(),
    requestId: typeof error?.request_id === 'string' ? error.request_id : response.headers.get('x-request-id'),
    details: Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : undefined,
    headers: response.headers,
  };
  if (response.status === 429) return new RateLimitError({ ...init, retryAfter });
  if (response.status >= 500) return new ServerError(init);
  const Class = BY_STATUS[response.status] ?? SlipwayError;
  return new Class(init);
}
