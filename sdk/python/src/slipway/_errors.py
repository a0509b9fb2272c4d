"""The exceptions the client raises: one class per kind of failure, all carrying the error body."""

from __future__ import annotations

from typing import Any

import httpx


class SlipwayError(Exception):
    """Base of every error this library raises.

    ``code``, ``status``, ``message``, ``request_id`` and ``details`` come from the API's error body
    (``{"error": {...}}``). ``code`` is stable (compare it with :class:`~slipway.ErrorCode`): the
    server's code; ``http_<status>`` for an error response that is not Slipway's JSON (a proxy's HTML
    502 is ``http_502``); ``timeout``, ``network_error`` or ``invalid_response`` for failures on the
    client's side, where ``status`` is ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
        details: list[dict[str, Any]] | None = None,
        headers: httpx.Headers | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.details = details or []
        self.headers = headers or httpx.Headers()

    def __str__(self) -> str:
        if self.status:
            parts = [f"{self.status} {self.code}: {self.message}"]
        else:
            parts = [f"{self.code}: {self.message}" if self.code else self.message]
        if self.request_id:
            parts.append(f"(request {self.request_id})")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r}, request_id={self.request_id!r})"


class APIConnectionError(SlipwayError):
    """``network_error``: the request got no response (connection refused or reset, DNS failure), or
    ``timeout`` (:class:`APITimeoutError`)."""

    def __init__(self, message: str, *, code: str | None = "network_error", **kwargs: Any) -> None:
        super().__init__(message, code=code, **kwargs)


class APITimeoutError(APIConnectionError):
    """``timeout``: no response within the call's ``timeout`` (seconds, each attempt)."""

    def __init__(self, message: str, *, code: str | None = "timeout", **kwargs: Any) -> None:
        super().__init__(message, code=code, **kwargs)


class InvalidResponseError(SlipwayError):
    """``invalid_response``: a success response whose body is not what the API document says (not
    JSON, or not the expected object); ``status`` is its status."""

    def __init__(self, message: str, *, code: str | None = "invalid_response", **kwargs: Any) -> None:
        super().__init__(message, code=code, **kwargs)


class APIStatusError(SlipwayError):
    """The API answered with an error status (4xx or 5xx)."""


class BadRequestError(APIStatusError):
    """400 ``invalid_request`` (or 413 / 415): the request is malformed."""


class AuthenticationError(APIStatusError):
    """401 ``unauthorized`` or ``invalid_token``: the credential is missing, wrong, expired or revoked."""


class PermissionDeniedError(APIStatusError):
    """403 ``insufficient_scope`` or ``forbidden``: the credential may not do this."""


class NotFoundError(APIStatusError):
    """404 ``not_found``."""


class ConflictError(APIStatusError):
    """409 ``conflict``, ``invalid_transition``, ``project_not_active``."""


class UnprocessableEntityError(APIStatusError):
    """422 ``validation_failed`` (see ``details``: one entry per field) or ``idempotency_key_reused``.

    (Not named ``ValidationError``, so it is never mistaken for pydantic's.)"""


class RateLimitError(APIStatusError):
    """429 ``rate_limited``; ``retry_after`` is the server's Retry-After in seconds, when given."""

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.headers.get("retry-after"))


class ServerError(APIStatusError):
    """5xx: ``internal_error``, or ``service_unavailable`` (503)."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: BadRequestError,
    415: BadRequestError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime
    from datetime import datetime, timezone

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def error_from_response(response: httpx.Response) -> APIStatusError:
    """Maps an error response to its exception, keeping whatever the body says. A body that is not
    Slipway's JSON error (a proxy's HTML page) gives the code ``http_<status>``."""
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        pass
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {}
    status = response.status_code
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIStatusError)
    details = error.get("details")
    return cls(
        str(error.get("message") or response.reason_phrase or f"HTTP {status}"),
        code=error["code"] if isinstance(error.get("code"), str) and error["code"] else f"http_{status}",
        status=status,
        request_id=(error.get("request_id") if isinstance(error.get("request_id"), str) else None) or response.headers.get("x-request-id"),
        details=details if isinstance(details, list) else None,
        headers=response.headers,
    )
