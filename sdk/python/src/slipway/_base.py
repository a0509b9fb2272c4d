"""What the sync and async clients share: settings, request building, retry decisions, parsing."""

from __future__ import annotations

import os
import platform
import random
import uuid
from dataclasses import dataclass
from typing import Any, Generic, Iterator, Mapping, TypeVar

import httpx
from pydantic import BaseModel

from ._errors import APIStatusError, AuthenticationError, SlipwayError, error_from_response, parse_retry_after
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


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the arguments that were passed."""
    return {k: v for k, v in fields.items() if not isinstance(v, NotGiven)}


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

    def delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before retry number ``attempt + 1``; None: do not retry."""
        if attempt >= self.max_retries:
            return None
        if response is not None:
            if response.status_code not in RETRY_STATUSES:
                return None
            after = parse_retry_after(response.headers.get("retry-after"))
            if after is not None:
                return after if after <= self.max_retry_after else None
        backoff: float = min(self.max_delay, self.initial_delay * (2**attempt))
        return backoff / 2 + random.uniform(0, backoff / 2)


def resolve_base_url(base_url: str | None) -> str:
    url = base_url or os.environ.get("SLIPWAY_BASE_URL")
    if not url:
        raise SlipwayError("No base_url: pass base_url= or set SLIPWAY_BASE_URL.")
    return url.rstrip("/")


def build_headers(method: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
    # One key per call, reused by every retry of it, so the server runs a POST at most once.
    if method == "POST":
        headers["Idempotency-Key"] = str(uuid.uuid4())
    if extra:
        headers.update(extra)
    return headers


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


def parse(response: httpx.Response, cast: type[T] | None) -> T | None:
    if response.status_code >= 400:
        raise error_from_response(response)
    if cast is None or response.status_code == 204 or not response.content:
        return None
    return cast.model_validate_json(response.content)


class BasePage(Generic[T]):
    """One page of a list: ``data`` (the items) and ``pagination`` (page, per_page, total)."""

    data: list[T]
    pagination: Pagination

    def __init__(self, response: httpx.Response, model: type[T], path: str, params: dict[str, Any]) -> None:
        if response.status_code >= 400:
            raise error_from_response(response)
        payload = response.json()
        self.data = [model.model_validate(item) for item in payload["data"]]
        self.pagination = Pagination.model_validate(payload["pagination"])
        self._model = model
        self._path = path
        self._params = params

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
    "DEFAULT_TIMEOUT",
    "NOT_GIVEN",
    "NotGiven",
    "RetryPolicy",
    "body",
    "build_headers",
    "is_invalid_token",
    "parse",
    "query",
    "resolve_base_url",
]
