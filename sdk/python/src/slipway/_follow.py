"""Following a deployment's log live (hand-written; the generated ``DeploymentLogs`` has ``read`` and
``append`` and takes ``follow`` from here): ``GET …/logs`` with ``Accept: text/event-stream``, read as
Server-Sent Events, resumed with ``Last-Event-ID`` after a dropped connection."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator, Literal, Mapping

import httpx

from ._base import RetryPolicy, is_invalid_token, path_id, transport_error
from ._errors import APIConnectionError, InvalidResponseError, RateLimitError, SlipwayError, error_from_response
from ._generated.models import Deployment, LogLine

if TYPE_CHECKING:
    from ._generated.async_client import AsyncSlipway
    from ._generated.client import Slipway
    from .oauth import _OAuthBase

__all__ = ["AsyncLogFollowing", "LogEvent", "LogFollowing"]

DEFAULT_MAX_RECONNECTS = 5
# No read timeout: a quiet log sends a keep-alive comment every 15 s, a dead connection ends in an error.
_STREAM_TIMEOUT = httpx.Timeout(30.0, read=None)


@dataclass(frozen=True)
class LogEvent:
    """One event of a followed log, by ``type``:

    - ``"line"``: ``line``, each line once and in order (``line.seq`` 1, 2, 3… after ``after``);
    - ``"status"``: ``deployment``, when the server sees its status change (changes in quick
      succession may arrive as the last of them);
    - ``"end"``: ``status`` and ``last_seq``, the deployment has finished and every line was sent; the
      iteration then stops.
    """

    type: Literal["line", "status", "end"]
    line: LogLine | None = None
    deployment: Deployment | None = None
    status: str | None = None
    last_seq: int | None = None


class _Follow:
    """What the sync and async followers share: the request, the event stream's parsing, when to reconnect."""

    def __init__(self, base_url: str, path: str, after: int, max_reconnects: int, extra_headers: Mapping[str, str] | None, defaults: Mapping[str, str]) -> None:
        self.url = base_url + path
        self.path = path
        self.last = after
        self.max_reconnects = max_reconnects
        self.headers = {**defaults, **(extra_headers or {})}
        self.failures = 0
        self.delivered = False
        self._event = ""
        self._data: list[str] = []

    def request_headers(self) -> dict[str, str]:
        headers = {**self.headers, "Accept": "text/event-stream"}
        if self.last > 0:
            headers["Last-Event-ID"] = str(self.last)
        return headers

    def params(self) -> dict[str, Any]:
        return {"after": self.last} if self.last > 0 else {}

    def request(self, http: httpx.Client | httpx.AsyncClient, token: str, oauth: _OAuthBase | None) -> httpx.Request:
        """The stream's request with ``token``: a fresh DPoP proof (or the bearer token), ``Last-Event-ID``."""
        headers = self.request_headers()
        if oauth is not None:
            headers.update(oauth.auth_headers(token, "GET", self.url))
        else:
            headers["Authorization"] = f"Bearer {token}"
        return http.build_request("GET", self.url, params=self.params(), headers=headers, timeout=_STREAM_TIMEOUT)

    def refused(self, response: httpx.Response, oauth: _OAuthBase | None, tried: set[str]) -> Literal["again", "refresh"]:
        """What to do with a refused answer (already read): ``"again"`` with the DPoP nonce it asks for,
        ``"refresh"`` the access token and try again (once each per connection, ``tried`` keeps count),
        or raises its error."""
        if oauth is not None and "nonce" not in tried and oauth.wants_dpop_nonce(response):
            tried.add("nonce")
            return "again"
        if oauth is not None and "refresh" not in tried and is_invalid_token(response):
            tried.add("refresh")
            return "refresh"
        raise error_from_response(response)

    def start(self) -> None:
        self.delivered = False
        self._event, self._data = "", []

    def feed(self, line: str) -> LogEvent | None:
        """One line of the stream (without its end); the event it completes, if any."""
        if line:
            if line.startswith(":"):
                return None
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                self._event = value
            elif field == "data":
                self._data.append(value)
            return None
        kind, data = self._event, self._data
        self._event, self._data = "", []
        if not data or kind not in ("line", "status", "end"):
            return None  # an event of another name (a later server's) is passed over
        try:
            payload = json.loads("\n".join(data))
            if kind == "line":
                log_line = LogLine.model_validate(payload)
                if log_line.seq <= self.last:
                    return None  # never a line twice
                self.last = log_line.seq
                self._progress()
                return LogEvent(type="line", line=log_line)
            if kind == "status":
                self._progress()
                return LogEvent(type="status", deployment=Deployment.model_validate(payload))
            if kind == "end":
                return LogEvent(type="end", status=str(payload["status"]), last_seq=int(payload["last_seq"]))
        except (ValueError, KeyError, TypeError) as err:
            raise InvalidResponseError(f"An event of GET {self.path} is not what the API describes: {err}") from None
        return None

    def _progress(self) -> None:
        self.delivered = True
        self.failures = 0

    def closed_early(self) -> APIConnectionError:
        return APIConnectionError(f"The log stream of GET {self.path} closed before its end")

    def wait_before_reconnect(self, err: Exception, policy: RetryPolicy) -> float:
        """Seconds to wait before the next connection, or raises the error when it is the end."""
        error = transport_error(err, "GET", self.path) if isinstance(err, httpx.RequestError) else err
        if not isinstance(error, SlipwayError):
            raise error
        status = error.status
        if isinstance(error, InvalidResponseError) or not (status is None or status == 429 or status >= 500):
            raise error
        if not self.delivered:
            self.failures += 1
        if self.failures > self.max_reconnects:
            raise error
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return min(error.retry_after, policy.max_retry_after)
        # The client's backoff (RetryPolicy's initial_delay, doubled per failure up to max_delay), jittered.
        backoff: float = min(policy.max_delay, policy.initial_delay * (2 ** max(0, self.failures - 1)))
        return backoff / 2 + random.uniform(0, backoff / 2)


def _checked(project_id: str, deployment_id: str, after: int | None, max_reconnects: int) -> tuple[str, int]:
    if after is not None and (not isinstance(after, int) or isinstance(after, bool) or after < 0):
        raise ValueError("after must be a non-negative integer")
    if max_reconnects < 0:
        raise ValueError("max_reconnects must be ≥ 0")
    return f"/v1/projects/{path_id(project_id)}/deployments/{path_id(deployment_id)}/logs", after or 0


class LogFollowing:
    """``client.deployment_logs.follow``."""

    _client: Slipway

    def follow(self, project_id: str, deployment_id: str, *, after: int | None = None, max_reconnects: int = DEFAULT_MAX_RECONNECTS, extra_headers: Mapping[str, str] | None = None) -> Iterator[LogEvent]:
        """Follow a deployment's log live: an iterator of :class:`LogEvent` (lines in order, status
        changes, a last ``"end"``; the iteration then stops).

        A dropped connection (reset, closed before ``end``, 429, 5xx) is resumed by itself after the
        last line seen (``Last-Event-ID``), after a backoff, so no line is lost or repeated. After
        ``max_reconnects`` connections in a row that failed without an event, or at once for an answer
        reconnecting cannot mend (401, 403, 404…), it raises the :class:`~slipway.SlipwayError`. The
        client's credentials go with every connection (a fresh DPoP proof each time). Closing the
        iterator (``break``, ``.close()``) closes the connection.
        """
        path, start = _checked(project_id, deployment_id, after, max_reconnects)
        return self._follow(_Follow(self._client.base_url, path, start, max_reconnects, extra_headers, self._client._default_headers))

    def _follow(self, state: _Follow) -> Iterator[LogEvent]:
        while True:
            state.start()
            try:
                response = self._open(state)
                try:
                    for line in response.iter_lines():
                        event = state.feed(line)
                        if event is not None:
                            yield event
                            if event.type == "end":
                                return
                finally:
                    response.close()
                raise state.closed_early()
            except (httpx.RequestError, SlipwayError) as err:
                delay = state.wait_before_reconnect(err, self._client.retry_policy)
            time.sleep(delay)

    def _open(self, state: _Follow) -> httpx.Response:
        client = self._client
        tried: set[str] = set()
        while True:
            token = client._token()
            response = client._http.send(state.request(client._http, token, client._oauth), stream=True)
            if response.status_code < 300:
                return response
            response.read()
            response.close()
            if state.refused(response, client._oauth, tried) == "refresh":
                assert client._oauth is not None
                client._oauth.refresh(if_access_token=token)


class AsyncLogFollowing:
    """``client.deployment_logs.follow`` of :class:`~slipway.AsyncSlipway`."""

    _client: AsyncSlipway

    def follow(self, project_id: str, deployment_id: str, *, after: int | None = None, max_reconnects: int = DEFAULT_MAX_RECONNECTS, extra_headers: Mapping[str, str] | None = None) -> AsyncIterator[LogEvent]:
        """Follow a deployment's log live: an iterator of :class:`LogEvent` (lines in order, status
        changes, a last ``"end"``; the iteration then stops).

        A dropped connection (reset, closed before ``end``, 429, 5xx) is resumed by itself after the
        last line seen (``Last-Event-ID``), after a backoff, so no line is lost or repeated. After
        ``max_reconnects`` connections in a row that failed without an event, or at once for an answer
        reconnecting cannot mend (401, 403, 404…), it raises the :class:`~slipway.SlipwayError`. The
        client's credentials go with every connection (a fresh DPoP proof each time). Closing the
        iterator (``break``, ``.close()``) closes the connection.
        """
        path, start = _checked(project_id, deployment_id, after, max_reconnects)
        return self._follow(_Follow(self._client.base_url, path, start, max_reconnects, extra_headers, self._client._default_headers))

    async def _follow(self, state: _Follow) -> AsyncIterator[LogEvent]:
        while True:
            state.start()
            try:
                response = await self._open(state)
                try:
                    async for line in response.aiter_lines():
                        event = state.feed(line)
                        if event is not None:
                            yield event
                            if event.type == "end":
                                return
                finally:
                    await response.aclose()
                raise state.closed_early()
            except (httpx.RequestError, SlipwayError) as err:
                delay = state.wait_before_reconnect(err, self._client.retry_policy)
            await asyncio.sleep(delay)

    async def _open(self, state: _Follow) -> httpx.Response:
        client = self._client
        tried: set[str] = set()
        while True:
            token = await client._token()
            response = await client._http.send(state.request(client._http, token, client._oauth), stream=True)
            if response.status_code < 300:
                return response
            await response.aread()
            await response.aclose()
            if state.refused(response, client._oauth, tried) == "refresh":
                assert client._oauth is not None
                await client._oauth.refresh(if_access_token=token)
