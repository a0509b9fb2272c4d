# File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.py.
# Do not edit: run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the server serves).
"""The API version this package targets, and every error ``code`` as a named constant."""

from __future__ import annotations

from enum import Enum

#: The Slipway API version this package was generated from (the OpenAPI document's ``info.version``).
API_VERSION = '1.0.0'


class ErrorCode(str, Enum):
    """A ``SlipwayError.code``: the server's codes (its ``Error`` schema), then the client's own.

    Compares equal to the plain string (``err.code == ErrorCode.NOT_FOUND``). An error response that is
    not Slipway's JSON (a proxy's HTML 502) has the code ``http_<status>`` (``http_502``), which is not a member.
    """

    INVALID_REQUEST = 'invalid_request'
    UNAUTHORIZED = 'unauthorized'
    INVALID_TOKEN = 'invalid_token'
    INVALID_DPOP_PROOF = 'invalid_dpop_proof'
    USE_DPOP_NONCE = 'use_dpop_nonce'
    INSUFFICIENT_SCOPE = 'insufficient_scope'
    FORBIDDEN = 'forbidden'
    QUOTA_EXCEEDED = 'quota_exceeded'
    NOT_FOUND = 'not_found'
    METHOD_NOT_ALLOWED = 'method_not_allowed'
    REQUEST_TIMEOUT = 'request_timeout'
    CONFLICT = 'conflict'
    INVALID_TRANSITION = 'invalid_transition'
    PROJECT_NOT_ACTIVE = 'project_not_active'
    BRANCH_NOT_ALLOWED = 'branch_not_allowed'
    ENVIRONMENT_LOCKED = 'environment_locked'
    ENVIRONMENT_FROZEN = 'environment_frozen'
    ENVIRONMENT_BUSY = 'environment_busy'
    DEPLOYMENT_NOT_ACTIVE = 'deployment_not_active'
    DEPLOYMENT_FINISHED = 'deployment_finished'
    LOG_FULL = 'log_full'
    SECRET_UNREADABLE = 'secret_unreadable'
    PAYLOAD_TOO_LARGE = 'payload_too_large'
    UNSUPPORTED_MEDIA_TYPE = 'unsupported_media_type'
    VALIDATION_FAILED = 'validation_failed'
    IDEMPOTENCY_KEY_REUSED = 'idempotency_key_reused'
    RATE_LIMITED = 'rate_limited'
    HEADERS_TOO_LARGE = 'headers_too_large'
    INTERNAL_ERROR = 'internal_error'
    SERVICE_UNAVAILABLE = 'service_unavailable'
    TIMEOUT = 'timeout'
    """The call's timeout passed before a response came (per attempt; no retry after it)."""
    NETWORK_ERROR = 'network_error'
    """No response: DNS failure, connection refused or reset."""
    INVALID_RESPONSE = 'invalid_response'
    """A success response whose body is not what the API document says."""
    REQUEST_ABORTED = 'request_aborted'
    """Not raised by the Python SDK: a cancelled asyncio task gets CancelledError, as asyncio expects."""

    def __str__(self) -> str:
        return str(self.value)
