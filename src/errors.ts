/**
 * The error factories of the service. Every error that reaches a client carries an HTTP status and a
 * stable machine-readable code; anything else becomes `internal_error` with no details.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    if (options.details) this.details = options.details;
    if (options.headers) this.headers = options.headers;
  }
}

export const invalidRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(400, 'invalid_request', message, details ? { details } : {});
export const validationFailed = (details: ErrorDetail[], message = 'The request is not valid.') =>
  new AppError(422, 'validation_failed', message, { details });

/**
 * What a thing out of reach is called in a 404, the one table of them: a record (whether it does not
 * exist or is another account's; the policy's resources are all here), a path no route serves, or a
 * request whose path parameters cannot name anything (`resource`).
 */
export const NOT_FOUND = {
  project: 'No such project.',
  deployment: 'No such deployment.',
  configuration: 'No such configuration.',
  api_key: 'No such API key.',
  user: 'No such user.',
  oauth_client: 'No such OAuth client.',
  webhook: 'No such webhook.',
  delivery: 'No such delivery.',
  event: 'No such event.',
  account: 'No such account.',
  environment: 'No such environment.',
  quota: 'No such quota.',
  trust_policy: 'No such trust policy.',
  endpoint: 'No such endpoint.',
  resource: 'The requested resource does not exist.',
} as const;
export type Missing = keyof typeof NOT_FOUND;

/** 404 `not_found`, in the table's words for `what`. */
export const notFound = (what: Missing = 'resource') => new AppError(404, 'not_found', NOT_FOUND[what]);

/** The record a lookup found, or 404 `not_found` for `what` (whether it does not exist or is out of reach). */
export function found<T>(record: T | null | undefined, what: Missing): T {
  if (record === null || record === undefined) throw notFound(what);
  return record;
}
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const forbidden = (message = 'You are not allowed to do this.') => new AppError(403, 'forbidden', message);

/**
 * Every error code the API can answer with, its status and a sample message. The OpenAPI document's
 * error examples come from here, so the docs list exactly what the code can produce.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, example: 'per_page must be an integer from 1 to 100.' },
  unauthorized: { status: 401, example: 'Authentication is required: send Authorization: Bearer <token>.' },
  invalid_token: { status: 401, example: 'The access token is invalid, expired or revoked.' },
  invalid_dpop_proof: { status: 401, example: 'The DPoP proof is not for this method and URL.' },
  use_dpop_nonce: { status: 401, example: 'Send the DPoP proof again with the nonce from the DPoP-Nonce header.' },
  insufficient_scope: { status: 403, example: 'This operation needs the "write" scope.' },
  forbidden: { status: 403, example: 'Your role does not allow this operation.' },
  quota_exceeded: { status: 403, example: 'The account has reached its quota of 1000 projects; delete some or ask the operator to raise it.' },
  not_found: { status: 404, example: NOT_FOUND.resource },
  method_not_allowed: { status: 405, example: 'DELETE is not allowed here; allowed: GET, POST.' },
  request_timeout: { status: 408, example: 'The request was not received in time.' },
  conflict: { status: 409, example: 'A project with this name already exists.' },
  invalid_transition: { status: 409, example: 'A project cannot move from archived to paused.' },
  project_not_active: { status: 409, example: 'The project is paused; it accepts no new deployments.' },
  branch_not_allowed: { status: 409, example: 'The production environment admits only branches matching release/*; feature/x is not one.' },
  environment_locked: { status: 409, example: 'The production environment is locked: incident 42 in progress.' },
  environment_frozen: { status: 409, example: 'The production environment is frozen until 2026-12-27T00:00:00.000Z: holidays.' },
  environment_busy: { status: 409, example: 'The production environment is serial and dep_01jd8x7p2c4e6g8j0k2m4n6q8s is building there.' },
  deployment_not_active: { status: 409, example: 'The deployment is succeeded; its configuration is released only while it is queued, building or deploying.' },
  deployment_finished: { status: 409, example: 'The deployment finished more than 10 minutes ago; its log takes no more lines.' },
  log_full: { status: 409, example: 'The log holds its limit of 100000 lines; it was cut and takes no more lines.' },
  secret_unreadable: { status: 409, example: 'The secret value of DATABASE_URL was sealed with data key dk_m3x1a0f2c4, which this server\'s key material lacks: restore that key into KEYS_DIR, or set the value again.' },
  payload_too_large: { status: 413, example: 'The request body is larger than 102400 bytes.' },
  unsupported_media_type: { status: 415, example: 'The request body must be application/json.' },
  validation_failed: { status: 422, example: 'The request is not valid.' },
  idempotency_key_reused: { status: 422, example: 'This Idempotency-Key was used with a different request.' },
  rate_limited: { status: 429, example: 'Rate limit exceeded; retry after 120 seconds.' },
  headers_too_large: { status: 431, example: 'The request headers are larger than 16 KiB.' },
  internal_error: { status: 500, example: 'An unexpected error occurred.' },
  service_unavailable: { status: 503, example: 'The service is temporarily unavailable. Try again shortly.' },
} as const satisfies Record<string, { status: number; example: string }>;
export type ErrorCode = keyof typeof ERROR_CODES;

/** RFC 6750 §3: the challenge on every 401 and on scope failures. */
const REALM = 'Bearer realm="slipway"';

export const unauthorized = (message: string = ERROR_CODES.unauthorized.example) =>
  new AppError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': REALM } });
export const invalidToken = (message: string = ERROR_CODES.invalid_token.example) =>
  new AppError(401, 'invalid_token', message, {
    headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"` },
  });
/** The proof algorithms /v1 accepts (the authorization server's `dpop_signing_alg_values_supported`). */
export const DPOP_ALGORITHMS = ['ES256', 'Ed25519', 'EdDSA'] as const;
const DPOP_REALM = `DPoP realm="slipway", algs="${DPOP_ALGORITHMS.join(' ')}"`;
const dpopChallenge = (error: string, message: string) => `${DPOP_REALM}, error="${error}", error_description="${message.replace(/["\\]/g, '')}"`;

/** RFC 9449 §7.1: a DPoP-bound token that is invalid, or sent without its proof (as Bearer). */
export const invalidDpopToken = (message: string = ERROR_CODES.invalid_token.example) =>
  new AppError(401, 'invalid_token', message, { headers: { 'WWW-Authenticate': dpopChallenge('invalid_token', message) } });
/** RFC 9449 §7.1: the DPoP proof is missing, malformed, for another request, too old, replayed or of another key. */
export const invalidDpopProof = (message: string = ERROR_CODES.invalid_dpop_proof.example) =>
  new AppError(401, 'invalid_dpop_proof', message, { headers: { 'WWW-Authenticate': dpopChallenge('invalid_dpop_proof', message) } });
/** RFC 9449 §9: the proof must carry the server nonce given in `DPoP-Nonce`. */
export const useDpopNonce = (nonce: string, message: string = ERROR_CODES.use_dpop_nonce.example) =>
  new AppError(401, 'use_dpop_nonce', message, { headers: { 'WWW-Authenticate': dpopChallenge('use_dpop_nonce', message), 'DPoP-Nonce': nonce } });

export const insufficientScope = (scope: string) =>
  new AppError(403, 'insufficient_scope', `This operation needs the "${scope}" scope.`, {
    headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"` },
  });
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new AppError(405, 'method_not_allowed', `${method} is not allowed here; allowed: ${allowed.join(', ')}.`, { headers: { Allow: allowed.join(', ') } });
export const invalidTransition = (message: string) => new AppError(409, 'invalid_transition', message);
export const projectNotActive = (message: string) => new AppError(409, 'project_not_active', message);
/** docs/product.md §9: the environment's rules refuse a deployment, or a move of one. */
export const environmentRefusal = (code: 'branch_not_allowed' | 'environment_locked' | 'environment_frozen' | 'environment_busy' | 'deployment_not_active', message: string) =>
  new AppError(409, code, message);
/** docs/product.md §10: appends end 10 minutes after the deployment finished. */
export const deploymentFinished = (message: string) => new AppError(409, 'deployment_finished', message);
/** docs/product.md §10: the log reached LOG_MAX_LINES / LOG_MAX_BYTES (or its retention) and was cut. */
export const logFull = (message: string) => new AppError(409, 'log_full', message);
export const payloadTooLarge = (limit: number) => new AppError(413, 'payload_too_large', `The request body is larger than ${limit} bytes.`);
export const unsupportedMediaType = (message = 'The request body must be application/json.') => new AppError(415, 'unsupported_media_type', message);
export const idempotencyKeyReused = () =>
  new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key.');
export const rateLimited = (retryAfterSeconds: number, what = 'Rate limit') =>
  new AppError(429, 'rate_limited', `${what} exceeded; retry after ${retryAfterSeconds} seconds.`, { headers: { 'Retry-After': String(retryAfterSeconds) } });
/** A count the account may hold is reached (403): `details` names the quota (`field`) and its limit. */
export const quotaExceeded = (quota: string, limit: number, noun = quota.replace(/_/g, ' ')) =>
  new AppError(403, 'quota_exceeded', `The account has reached its quota of ${limit} ${noun}; delete some or ask the operator to raise it.`, {
    details: [{ field: quota, message: `limit ${limit}` }],
  });
