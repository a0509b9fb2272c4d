// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

/** This package's version (package.json). */
export const VERSION = '0.2.0';

/** The version of the Slipway API this package was generated from (the OpenAPI document's `info.version`). */
export const API_VERSION = '1.0.0';

/** The `code` of every error the server answers with (the `Error` schema). */
export const SERVER_ERROR_CODES = {
  InvalidRequest: 'invalid_request',
  Unauthorized: 'unauthorized',
  InvalidToken: 'invalid_token',
  InvalidDpopProof: 'invalid_dpop_proof',
  UseDpopNonce: 'use_dpop_nonce',
  InsufficientScope: 'insufficient_scope',
  Forbidden: 'forbidden',
  QuotaExceeded: 'quota_exceeded',
  NotFound: 'not_found',
  MethodNotAllowed: 'method_not_allowed',
  RequestTimeout: 'request_timeout',
  Conflict: 'conflict',
  InvalidTransition: 'invalid_transition',
  ProjectNotActive: 'project_not_active',
  BranchNotAllowed: 'branch_not_allowed',
  EnvironmentLocked: 'environment_locked',
  EnvironmentFrozen: 'environment_frozen',
  EnvironmentBusy: 'environment_busy',
  DeploymentNotActive: 'deployment_not_active',
  DeploymentFinished: 'deployment_finished',
  LogFull: 'log_full',
  SecretUnreadable: 'secret_unreadable',
  PayloadTooLarge: 'payload_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  ValidationFailed: 'validation_failed',
  IdempotencyKeyReused: 'idempotency_key_reused',
  RateLimited: 'rate_limited',
  HeadersTooLarge: 'headers_too_large',
  InternalError: 'internal_error',
  ServiceUnavailable: 'service_unavailable',
} as const;
