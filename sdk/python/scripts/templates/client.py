# The one source of both clients. scripts/generate.py writes it out as
# src/slipway/_generated/async_client.py as it is here, and as src/slipway/_generated/client.py without
# async and await (its UNASYNC rules: AsyncSlipway -> Slipway, ``await x`` -> ``x``, aclose -> close,
# asyncio.sleep -> time.sleep, ...). Write it as the asynchronous client; every rule must still apply
# and the synchronous output must keep no async word, or the generator stops and says which.
# Edit here, then run scripts/generate.sh BASE_URL. These comment lines are left out of both outputs.
from __future__ import annotations

import asyncio
import copy
import dataclasses
import os
from typing import Any, AsyncIterator, Mapping, TypeVar, overload

import httpx
from pydantic import BaseModel

from .._base import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_OPTIONS,
    DEFAULT_TIMEOUT,
    BasePage,
    RequestOptions,
    RetryPolicy,
    Timeout,
    build_headers,
    check_path,
    is_invalid_token,
    jsonable,
    may_resend,
    parse,
    parse_json,
    resolve_base_url,
    transport_error,
)
from .._errors import SlipwayError
from ..oauth import AsyncOAuth
from .async_resources import AsyncResources

T = TypeVar("T", bound=BaseModel)

__all__ = ["AsyncPage", "AsyncSlipway"]

# Looked up at call time, so a test can record the waits instead of sleeping through them.
_sleep = asyncio.sleep


class AsyncPage(BasePage[T]):
    """A page of a list; ``await next_page()`` fetches the next one, ``None`` after the last."""

    _client: AsyncSlipway

    async def next_page(self) -> AsyncPage[T] | None:
        """The next page, fetched now with this page's filters and ``per_page``; ``None`` after the last."""
        if not self.has_next_page:
            return None
        return await self._client._get_page(self._path, self._model, self._next_params(), self._options)

    async def iter_all(self) -> AsyncIterator[T]:
        """Every item of this page and the pages after it, fetched as they are reached."""
        page: AsyncPage[T] | None = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()


class AsyncSlipway(AsyncResources):
    """Asynchronous client for the Slipway API.

    Credentials, one of: ``api_key`` (or the ``SLIPWAY_API_KEY`` environment variable), an OAuth
    ``access_token``, or ``oauth`` (an :class:`~slipway.AsyncOAuth` holding a user's tokens, refreshed
    when they expire or the API answers 401 ``invalid_token``; with ``AsyncOAuth(..., dpop=True)`` a
    bound token is sent as ``Authorization: DPoP`` with a fresh proof per request).

    ``max_retries`` (default 2; 0 turns retries off) applies to 429 (after ``Retry-After``), 503 and
    network errors; every create carries an ``Idempotency-Key`` (generated, or the call's
    ``idempotency_key=``) that its retries reuse, so a retried create never creates twice. ``timeout``
    is in seconds (or an ``httpx.Timeout``), for each attempt; a timeout is not retried.

    Every method also takes the keyword-only per-call options ``timeout=``, ``extra_headers=``,
    ``max_retries=`` (and ``idempotency_key=`` on creates). Close the client with :meth:`aclose`, or
    use it as an async context manager (``async with AsyncSlipway(...) as client:``).
    Cancelling the task of a call raises ``asyncio.CancelledError`` as usual.
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

    def with_options(self, *, timeout: Timeout | None = None, max_retries: int | None = None) -> AsyncSlipway:
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

    async def _send(self, method: str, path: str, params: Mapping[str, Any] | None, json: Any, options: RequestOptions) -> httpx.Response:
        headers = build_headers(self._default_headers, options)
        timeout = self._timeout if options.timeout is None else options.timeout
        refreshed = False
        nonce_retried = False
        attempt = 0
        while True:
            token = await self._token()
            url = self.base_url + path
            if self._oauth is not None:
                # Bearer, or for a DPoP-bound token "DPoP" and a fresh proof for this very request.
                headers.pop("DPoP", None)
                headers.update(self._oauth.auth_headers(token, method, url))
            else:
                headers["Authorization"] = f"Bearer {token}"
            try:
                response = await self._http.request(method, url, params=params, json=json, headers=headers, timeout=timeout)
            except httpx.RequestError as err:
                delay = self.retry_policy.delay(attempt, None, options.max_retries) if may_resend(err, method, headers) else None
                if delay is None:
                    raise transport_error(err, method, path) from err
                attempt += 1
                await _sleep(delay)
                continue
            if self._oauth is not None and self._oauth.wants_dpop_nonce(response) and not nonce_retried:
                # RFC 9449 §8: the server wants its nonce in the proof; send once more with it.
                nonce_retried = True
                await response.aclose()
                continue
            if self._oauth is not None and not refreshed and is_invalid_token(response):
                # The access token expired early or was revoked: refresh once and send again.
                refreshed = True
                await response.aclose()
                await self._oauth.refresh(if_access_token=token)
                continue
            delay = self.retry_policy.delay(attempt, response, options.max_retries) if response.status_code >= 400 else None
            if delay is None:
                return response
            attempt += 1
            await response.aclose()
            await _sleep(delay)

    @overload
    async def _request(self, method: str, path: str, cast: type[T], *, params: Mapping[str, Any] | None = None, json: Any = None, options: RequestOptions = DEFAULT_OPTIONS) -> T: ...

    @overload
    async def _request(self, method: str, path: str, cast: None, *, params: Mapping[str, Any] | None = None, json: Any = None, options: RequestOptions = DEFAULT_OPTIONS) -> None: ...

    async def _request(
        self, method: str, path: str, cast: type[T] | None, *, params: Mapping[str, Any] | None = None, json: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> T | None:
        return parse(await self._send(method, path, params, json, options), cast)

    async def _get_page(self, path: str, model: type[T], params: dict[str, Any], options: RequestOptions) -> AsyncPage[T]:
        page: AsyncPage[T] = AsyncPage(await self._send("GET", path, params, None, options), model, path, params, options)
        page._client = self
        return page

    async def _iterate(self, path: str, model: type[T], params: dict[str, Any], options: RequestOptions) -> AsyncIterator[T]:
        # An async generator: nothing is fetched until the first item is asked for.
        page = await self._get_page(path, model, params, options)
        async for item in page.iter_all():
            yield item

    # -- raw requests -------------------------------------------------------------------------

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast: type[T],
        idempotency_key: str | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
    ) -> T: ...

    @overload
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast: None = None,
        idempotency_key: str | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
    ) -> Any: ...

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        cast: type[T] | None = None,
        idempotency_key: str | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        max_retries: int | None = None,
    ) -> Any:
        """Sends any request under the base URL, for an operation this version does not wrap yet:
        ``await client.request("GET", "/v1/projects", params={"per_page": 5})``. Same credentials,
        retries, errors and options as the resource methods. Returns the decoded JSON (``None`` for an
        empty answer), or an instance of ``cast`` (a model) when given. ``json`` may hold models and
        datetimes (sent as JSON and ISO 8601). A POST is retried after a lost response only with an
        ``idempotency_key=``."""
        options = RequestOptions(idempotency_key=idempotency_key, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries)
        response = await self._send(method.upper(), check_path(path), params, jsonable(json), options)
        return parse(response, cast) if cast is not None else parse_json(response)

    # -- lifecycle ----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the connection pool (unless it is an ``http_client=`` you passed, which stays yours).
        ``async with AsyncSlipway(...) as client:`` calls it on leaving the block."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncSlipway:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
