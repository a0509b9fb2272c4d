"""What the sync and async clients share: settings, request building, retry decisions, parsing."""

from __future__ import annotations

import json as jsonlib
import os
import platform
import random
import uuid
import warnings
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Generic, Iterator, Mapping, Sequence, TypeVar, Union
from urllib.parse import quote

import httpx
import pydantic
from pydantic import BaseModel

from ._errors import (
    APIConnectionError,
    InvalidResponseError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    SlipwayError,
    error_from_response,
    parse_retry_after,
)
from ._generated.models import Pagination
from ._version import __version__

T = TypeVar("T", bound=BaseModel)

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
#: Statuses worth another try: the request did not run (429) or the service is briefly down (503).
RETRY_STATUSES = frozenset({429, 503})
USER_AGENT = f"slipway-python/{__version__} (python {platform.python_version()}; httpx {httpx.__version__})"


class NotGiven:
    """Marks a keyword argument that was not passed (so ``None`` can still mean JSON ``null``)."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN: Any = NotGiven()

#: A timeout in seconds, or an ``httpx.Timeout`` for each phase (connect, read, write, pool).
Timeout = Union[float, httpx.Timeout]


@dataclass(frozen=True)
class RequestOptions:
    """What one call may change: its ``Idempotency-Key``, timeout, extra headers and retries.

    ``idempotent``: the operation takes an ``Idempotency-Key`` (a create); without ``idempotency_key``
    a random one is generated for the call and reused by each of its retries.
    """

    idempotency_key: str | None = None
    idempotent: bool = False
    timeout: Timeout | None = None
    extra_headers: Mapping[str, str] | None = None
    max_retries: int | None = None


DEFAULT_OPTIONS = RequestOptions()


def path_id(value: str) -> str:
    """An id as one path segment (so ``/``, ``..`` or ``?`` in it cannot change the request)."""
    segment = quote(str(value), safe="")
    return segment.replace(".", "%2E") if segment in (".", "..") else segment


def jsonable(value: Any) -> Any:
    """``value`` with datetimes as ISO 8601 strings, models as their JSON data and sequences as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [jsonable(v) for v in value]
    return value


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the arguments that were passed (datetimes as ISO 8601, sequences as lists)."""
    return {k: jsonable(v) for k, v in fields.items() if not isinstance(v, NotGiven)}


def query(**params: Any) -> dict[str, Any]:
    """Query parameters of the arguments that were given (``None`` and NOT_GIVEN are left out)."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        if value is None or isinstance(value, NotGiven):
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter, honouring Retry-After up to ``max_retry_after`` seconds."""

    max_retries: int = DEFAULT_MAX_RETRIES
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, response: httpx.Response | None, max_retries: int | None = None) -> float | None:
        """Seconds to wait before retry number ``attempt + 1``; None: do not retry. ``max_retries``
        (a call's own) overrides the policy's."""
        if attempt >= (self.max_retries if max_retries is None else max_retries):
            return None
        if response is not None:
            if response.status_code not in RETRY_STATUSES:
                return None
            after = parse_retry_after(response.headers.get("retry-after"))
            if after is not None:
                return after if after <= self.max_retry_after else None
        backoff: float = min(self.max_delay, self.initial_delay * (2**attempt))
        return backoff / 2 + random.uniform(0, backoff / 2)


def base_url_from_environment() -> str | None:
    """``SLIPWAY_URL``, the name all three Slipway SDKs read. ``SLIPWAY_BASE_URL`` (this SDK's name up to
    0.2) still works, with a ``FutureWarning`` (shown by default), until 0.4.0: see CHANGELOG.md."""
    url = os.environ.get("SLIPWAY_URL")
    if url:
        return url
    deprecated = os.environ.get("SLIPWAY_BASE_URL")
    if deprecated:
        warnings.warn(
            "SLIPWAY_BASE_URL is deprecated and stops working in slipway 0.4.0: set SLIPWAY_URL instead.",
            FutureWarning,
            stacklevel=4,
        )
    return deprecated or None


def resolve_base_url(base_url: str | None) -> str:
    url = base_url or base_url_from_environment()
    if not url:
        raise SlipwayError("No base_url: pass base_url= or set SLIPWAY_URL.")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as err:
        raise SlipwayError(f"base_url is not a URL: {url!r} ({err})") from None
    if parsed.scheme not in ("http", "https") or not parsed.host or parsed.query or parsed.fragment or parsed.userinfo:
        raise SlipwayError(f"base_url must be http(s)://host[:port][/path], e.g. https://slipway.example.com (got {url!r})")
    return url.rstrip("/")


def build_headers(defaults: Mapping[str, str], options: RequestOptions) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **defaults}
    # One key per call, reused by every retry of it, so the server runs a create at most once. A key
    # the caller gives survives a restart: the same key later gets the first answer, never a second create.
    if options.idempotency_key is not None:
        headers["Idempotency-Key"] = options.idempotency_key
    elif options.idempotent:
        headers["Idempotency-Key"] = str(uuid.uuid4())
    if options.extra_headers:
        headers.update(options.extra_headers)
    return headers


def check_path(path: str) -> str:
    """A path under the base URL. Anything else (a full URL, ``//host``) could send the credential
    to another host, so it is refused."""
    if not path.startswith("/") or path.startswith("//"):
        raise SlipwayError(f"path must start with a single '/', e.g. /v1/projects (got {path!r})")
    return path


def may_resend(err: httpx.RequestError, method: str, headers: Mapping[str, str]) -> bool:
    """Whether a request that failed without a response may be sent again: a timeout never (the
    caller's time is up), nor a response that could not be read (a bad encoding, redirects); a
    connection that was never made always; otherwise anything but a POST without an
    Idempotency-Key (which might have run)."""
    if isinstance(err, httpx.TimeoutException) or not isinstance(err, httpx.TransportError):
        return False
    if isinstance(err, httpx.ConnectError):
        return True
    return method != "POST" or "Idempotency-Key" in headers


def transport_error(err: httpx.RequestError, method: str, path: str) -> APIConnectionError:
    what = f"{method} {path}: {type(err).__name__}: {err}"
    if isinstance(err, httpx.TimeoutException):
        return APITimeoutError(f"Timed out: {what}")
    return APIConnectionError(f"No response: {what}")


def is_invalid_token(response: httpx.Response) -> bool:
    """401 invalid_token: an expired or revoked access token, which a refresh may fix."""
    if response.status_code != 401:
        return False
    if 'error="invalid_token"' in response.headers.get("www-authenticate", ""):
        return True
    try:
        return bool(response.json().get("error", {}).get("code") == "invalid_token")
    except (ValueError, AttributeError):
        return False


def invalid_response(response: httpx.Response, err: Exception) -> InvalidResponseError:
    return InvalidResponseError(
        f"The response to {response.request.method} {response.request.url.path} is not what the API describes: {err}",
        status=response.status_code,
        request_id=response.headers.get("x-request-id"),
        headers=response.headers,
    )


def parse(response: httpx.Response, cast: type[T] | None) -> T | None:
    if response.status_code >= 400:
        raise error_from_response(response)
    if cast is None or response.status_code == 204 or not response.content:
        return None
    try:
        return cast.model_validate_json(response.content)
    except pydantic.ValidationError as err:
        raise invalid_response(response, err) from None


def parse_json(response: httpx.Response) -> Any:
    """The body of a raw request's response: decoded JSON, or None when empty."""
    if response.status_code >= 400:
        raise error_from_response(response)
    if response.status_code == 204 or not response.content:
        return None
    try:
        return jsonlib.loads(response.content)
    except ValueError as err:
        raise invalid_response(response, err) from None


class BasePage(Generic[T]):
    """One page of a list: ``data`` (the items) and ``pagination`` (page, per_page, total)."""

    data: list[T]
    pagination: Pagination

    def __init__(self, response: httpx.Response, model: type[T], path: str, params: dict[str, Any], options: RequestOptions) -> None:
        if response.status_code >= 400:
            raise error_from_response(response)
        try:
            payload = jsonlib.loads(response.content)
            self.data = [model.model_validate(item) for item in payload["data"]]
            self.pagination = Pagination.model_validate(payload["pagination"])
        except (ValueError, TypeError, KeyError) as err:  # pydantic.ValidationError is a ValueError
            raise invalid_response(response, err) from None
        self._model = model
        self._path = path
        self._params = params
        self._options = options

    @property
    def has_next_page(self) -> bool:
        p = self.pagination
        return bool(self.data) and p.page * p.per_page < p.total

    def _next_params(self) -> dict[str, Any]:
        return {**self._params, "page": self.pagination.page + 1, "per_page": self.pagination.per_page}

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[T]:
        """The items of this page only (``iter_all()`` continues over the next pages)."""
        return iter(self.data)

    def __repr__(self) -> str:
        p = self.pagination
        return f"<{type(self).__name__} page={p.page} per_page={p.per_page} total={p.total} items={len(self.data)}>"


__all__ = [
    "APIStatusError",
    "AuthenticationError",
    "BasePage",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_OPTIONS",
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "NotGiven",
    "RequestOptions",
    "RetryPolicy",
    "Timeout",
    "body",
    "build_headers",
    "check_path",
    "is_invalid_token",
    "jsonable",
    "may_resend",
    "parse",
    "parse_json",
    "path_id",
    "query",
    "resolve_base_url",
    "transport_error",
]
