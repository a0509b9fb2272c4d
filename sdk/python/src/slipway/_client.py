"""The synchronous client."""

from __future__ import annotations

import copy
import dataclasses
import os
import time
from typing import Any, Iterator, Mapping, TypeVar, overload

import httpx
from pydantic import BaseModel

from ._base import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    BasePage,
    RetryPolicy,
    build_headers,
    is_invalid_token,
    parse,
    resolve_base_url,
)
from ._errors import APIConnectionError, APITimeoutError, SlipwayError
from .oauth import OAuth
from .resources import ApiKeys, Configurations, Deployments, Events, OAuthClients, Projects, Users, Webhooks

T = TypeVar("T", bound=BaseModel)

# Looked up at call time, so a test can record the waits instead of sleeping through them.
_sleep = time.sleep


class Page(BasePage[T]):
    """A page of a list; ``next_page()`` fetches the next one, ``None`` after the last."""

    _client: Slipway

    def next_page(self) -> Page[T] | None:
        if not self.has_next_page:
            return None
        return self._client._get_page(self._path, self._model, self._next_params())

    def iter_all(self) -> Iterator[T]:
        """Every item of this page and the pages after it, fetched as they are reached."""
        page: Page[T] | None = self
        while page is not None:
            yield from page.data
            page = page.next_page()


class Slipway:
    """Client for the Slipway API.

    Credentials, one of: ``api_key`` (or the ``SLIPWAY_API_KEY`` environment variable), an OAuth
    ``access_token``, or ``oauth`` (an :class:`~slipway.OAuth` holding a user's tokens, refreshed
    when they expire or the API answers 401 ``invalid_token``).

    ``max_retries`` (default 2; 0 turns retries off) applies to 429 (after ``Retry-After``), 503 and
    network errors; every POST carries a generated ``Idempotency-Key`` that its retries reuse, so a
    retried POST never creates twice. ``timeout`` is in seconds (or an ``httpx.Timeout``).
    """

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        access_token: str | None = None,
        oauth: OAuth | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_policy: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
        default_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = resolve_base_url(base_url)
        given = [c for c in (api_key, access_token, oauth) if c is not None]
        if len(given) > 1:
            raise SlipwayError("Pass only one of api_key, access_token and oauth.")
        if not given:
            api_key = os.environ.get("SLIPWAY_API_KEY")
            if not api_key:
                raise SlipwayError("No credential: pass api_key=, access_token= or oauth= (or set SLIPWAY_API_KEY).")
        self._static_token = api_key or access_token
        self._oauth = oauth
        self.retry_policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)
        self._timeout = timeout
        self._default_headers = dict(default_headers or {})

        self._bind_resources()

    def _bind_resources(self) -> None:
        self.projects = Projects(self)
        self.deployments = Deployments(self)
        self.configurations = Configurations(self)
        self.api_keys = ApiKeys(self)
        self.users = Users(self)
        self.oauth_clients = OAuthClients(self)
        self.events = Events(self)
        self.webhooks = Webhooks(self)

    def with_options(self, *, timeout: float | httpx.Timeout | None = None, max_retries: int | None = None) -> Slipway:
        """A client with another ``timeout`` and/or ``max_retries`` for some calls, sharing this one's
        credentials and connection pool: ``client.with_options(timeout=5).projects.list()``."""
        clone = copy.copy(self)
        clone._owns_http = False
        if timeout is not None:
            clone._timeout = timeout
        if max_retries is not None:
            clone.retry_policy = dataclasses.replace(self.retry_policy, max_retries=max_retries)
        clone._bind_resources()
        return clone

    # -- plumbing -----------------------------------------------------------------------------

    def _token(self) -> str:
        if self._oauth is not None:
            return self._oauth.access_token()
        assert self._static_token is not None
        return self._static_token

    def _send(self, method: str, path: str, params: Mapping[str, Any] | None, json: Any) -> httpx.Response:
        headers = build_headers(method, self._default_headers)
        refreshed = False
        attempt = 0
        while True:
            token = self._token()
            headers["Authorization"] = f"Bearer {token}"
            try:
                response = self._http.request(method, self.base_url + path, params=params, json=json, headers=headers, timeout=self._timeout)
            except httpx.TransportError as err:
                delay = self.retry_policy.delay(attempt, None)
                if delay is None:
                    cls = APITimeoutError if isinstance(err, httpx.TimeoutException) else APIConnectionError
                    raise cls(f"{method} {path}: {type(err).__name__}: {err}") from err
                attempt += 1
                _sleep(delay)
                continue
            if self._oauth is not None and not refreshed and is_invalid_token(response):
                # The access token expired early or was revoked: refresh once and send again.
                refreshed = True
                self._oauth.refresh(if_access_token=token)
                continue
            delay = self.retry_policy.delay(attempt, response) if response.status_code >= 400 else None
            if delay is None:
                return response
            attempt += 1
            response.close()
            _sleep(delay)

    @overload
    def _request(self, method: str, path: str, cast: type[T], *, params: Mapping[str, Any] | None = None, json: Any = None) -> T: ...

    @overload
    def _request(self, method: str, path: str, cast: None, *, params: Mapping[str, Any] | None = None, json: Any = None) -> None: ...

    def _request(self, method: str, path: str, cast: type[T] | None, *, params: Mapping[str, Any] | None = None, json: Any = None) -> T | None:
        return parse(self._send(method, path, params, json), cast)

    def _get_page(self, path: str, model: type[T], params: dict[str, Any]) -> Page[T]:
        page: Page[T] = Page(self._send("GET", path, params, None), model, path, params)
        page._client = self
        return page

    def _iterate(self, path: str, model: type[T], params: dict[str, Any]) -> Iterator[T]:
        # A generator: nothing is fetched until the first item is asked for.
        yield from self._get_page(path, model, params).iter_all()

    # -- lifecycle ----------------------------------------------------------------------------

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Slipway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
