"""The asynchronous client: the same API as :class:`Slipway`, with ``await`` and ``async for``."""

from __future__ import annotations

import copy
import dataclasses
import asyncio
import os
from typing import Any, AsyncIterator, Mapping, TypeVar, overload

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
from .oauth import AsyncOAuth
from ._async_resources import (
    AsyncApiKeys,
    AsyncConfigurations,
    AsyncDeployments,
    AsyncEvents,
    AsyncOAuthClients,
    AsyncProjects,
    AsyncUsers,
    AsyncWebhooks,
)

T = TypeVar("T", bound=BaseModel)

# Looked up at call time, so a test can record the waits instead of sleeping through them.
_sleep = asyncio.sleep


class AsyncPage(BasePage[T]):
    """A page of a list; ``await next_page()`` fetches the next one, ``None`` after the last."""

    _client: AsyncSlipway

    async def next_page(self) -> AsyncPage[T] | None:
        if not self.has_next_page:
            return None
        return await self._client._get_page(self._path, self._model, self._next_params())

    async def iter_all(self) -> AsyncIterator[T]:
        """Every item of this page and the pages after it, fetched as they are reached."""
        page: AsyncPage[T] | None = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()


class AsyncSlipway:
    """Asynchronous client for the Slipway API (see :class:`~slipway.Slipway` for the options).

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
        oauth: AsyncOAuth | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_policy: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
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
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._timeout = timeout
        self._default_headers = dict(default_headers or {})

        self._bind_resources()

    def _bind_resources(self) -> None:
        self.projects = AsyncProjects(self)
        self.deployments = AsyncDeployments(self)
        self.configurations = AsyncConfigurations(self)
        self.api_keys = AsyncApiKeys(self)
        self.users = AsyncUsers(self)
        self.oauth_clients = AsyncOAuthClients(self)
        self.events = AsyncEvents(self)
        self.webhooks = AsyncWebhooks(self)

    def with_options(self, *, timeout: float | httpx.Timeout | None = None, max_retries: int | None = None) -> AsyncSlipway:
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

    async def _token(self) -> str:
        if self._oauth is not None:
            return await self._oauth.access_token()
        assert self._static_token is not None
        return self._static_token

    async def _send(self, method: str, path: str, params: Mapping[str, Any] | None, json: Any) -> httpx.Response:
        headers = build_headers(method, self._default_headers)
        refreshed = False
        attempt = 0
        while True:
            token = await self._token()
            headers["Authorization"] = f"Bearer {token}"
            try:
                response = await self._http.request(method, self.base_url + path, params=params, json=json, headers=headers, timeout=self._timeout)
            except httpx.TransportError as err:
                delay = self.retry_policy.delay(attempt, None)
                if delay is None:
                    cls = APITimeoutError if isinstance(err, httpx.TimeoutException) else APIConnectionError
                    raise cls(f"{method} {path}: {type(err).__name__}: {err}") from err
                attempt += 1
                await _sleep(delay)
                continue
            if self._oauth is not None and not refreshed and is_invalid_token(response):
                # The access token expired early or was revoked: refresh once and send again.
                refreshed = True
                await self._oauth.refresh(if_access_token=token)
                continue
            delay = self.retry_policy.delay(attempt, response) if response.status_code >= 400 else None
            if delay is None:
                return response
            attempt += 1
            await response.aclose()
            await _sleep(delay)

    @overload
    async def _request(self, method: str, path: str, cast: type[T], *, params: Mapping[str, Any] | None = None, json: Any = None) -> T: ...

    @overload
    async def _request(self, method: str, path: str, cast: None, *, params: Mapping[str, Any] | None = None, json: Any = None) -> None: ...

    async def _request(self, method: str, path: str, cast: type[T] | None, *, params: Mapping[str, Any] | None = None, json: Any = None) -> T | None:
        return parse(await self._send(method, path, params, json), cast)

    async def _get_page(self, path: str, model: type[T], params: dict[str, Any]) -> AsyncPage[T]:
        page: AsyncPage[T] = AsyncPage(await self._send("GET", path, params, None), model, path, params)
        page._client = self
        return page

    async def _iterate(self, path: str, model: type[T], params: dict[str, Any]) -> AsyncIterator[T]:
        # An async generator: nothing is fetched until the first item is asked for.
        page = await self._get_page(path, model, params)
        async for item in page.iter_all():
            yield item

    # -- lifecycle ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncSlipway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
