"""deployment_logs.follow: a deployment's log live, resumed after a dropped connection (sync and async)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, AsyncIterator, Iterator

import httpx
import pytest

from slipway import APIConnectionError, AsyncSlipway, LogEvent, NotFoundError, RetryPolicy, Slipway

from .harness import Harness

FAST = RetryPolicy(initial_delay=0.01, max_delay=0.05)


class _Cut:
    """A stream's bytes up to and with its ``cut[0]``-th ``line`` event; then a reset (``cut[1]``) or the end."""

    def __init__(self, cut: tuple[int, bool]) -> None:
        self.cut = cut
        self.buffer = b""
        self.lines = 0
        self.done = False

    def blocks(self, chunk: bytes) -> Iterator[bytes]:
        """The whole events ``chunk`` completes (``done`` once the cut is reached)."""
        self.buffer += chunk
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            yield block + b"\n\n"
            if b"event: line\n" in block + b"\n":
                self.lines += 1
                if self.lines == self.cut[0]:
                    if self.cut[1]:
                        raise httpx.ReadError("connection reset by peer")
                    self.done = True
                    return


class _CutStream(httpx.SyncByteStream):
    def __init__(self, stream: httpx.SyncByteStream, cut: _Cut) -> None:
        self.stream = stream
        self.cut = cut

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            yield from self.cut.blocks(chunk)
            if self.cut.done:
                return

    def close(self) -> None:
        self.stream.close()


class _AsyncCutStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, cut: _Cut) -> None:
        self.stream = stream
        self.cut = cut

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            for block in self.cut.blocks(chunk):
                yield block
            if self.cut.done:
                return

    async def aclose(self) -> None:
        await self.stream.aclose()


class _Streams:
    """Cuts the i-th log stream after ``cuts[i]`` line events; records each stream's request headers."""

    def __init__(self, cuts: list[tuple[int, bool]]) -> None:
        self.cuts = cuts
        self.streams: list[httpx.Headers] = []

    def cut_for(self, request: httpx.Request, response: httpx.Response) -> _Cut | None:
        """The cut of this answer's stream, if it is a log stream to cut."""
        if request.headers.get("accept") != "text/event-stream":
            return None
        i = len(self.streams)
        self.streams.append(request.headers)
        if i >= len(self.cuts) or response.status_code != 200:
            return None
        return _Cut(self.cuts[i])


class CuttingTransport(_Streams, httpx.BaseTransport):
    def __init__(self, cuts: list[tuple[int, bool]]) -> None:
        super().__init__(cuts)
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        cut = self.cut_for(request, response)
        if cut is None:
            return response
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers, stream=_CutStream(response.stream, cut), extensions=response.extensions)


class AsyncCuttingTransport(_Streams, httpx.AsyncBaseTransport):
    def __init__(self, cuts: list[tuple[int, bool]]) -> None:
        super().__init__(cuts)
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        cut = self.cut_for(request, response)
        if cut is None:
            return response
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers, stream=_AsyncCutStream(response.stream, cut), extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _client(harness: Harness, transport: httpx.BaseTransport | None = None) -> Slipway:
    http = httpx.Client(transport=transport) if transport else None
    return Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], retry_policy=FAST, http_client=http)


def _deployment(client: Slipway, project_id: str, lines: int) -> str:
    deployment = client.deployments.create(project_id, environment="staging", branch="py-follow")
    if lines:
        client.deployment_logs.append(project_id, deployment.id, lines=[{"text": f"line {i}"} for i in range(1, lines + 1)])
    return deployment.id


def _finish(client: Slipway, project_id: str, deployment_id: str) -> None:
    for status in ("building", "deploying", "succeeded"):
        client.deployments.update(project_id, deployment_id, status=status)


def _seqs(events: list[LogEvent]) -> list[int]:
    return [e.line.seq for e in events if e.type == "line" and e.line is not None]


def test_lines_in_order_status_changes_then_end(harness: Harness) -> None:
    project_id = harness.info["api_key"]["project_id"]
    with _client(harness) as client:
        deployment_id = _deployment(client, project_id, 3)
        events: list[LogEvent] = []
        mover: threading.Thread | None = None

        def move() -> None:
            client.deployments.update(project_id, deployment_id, status="building")
            client.deployment_logs.append(project_id, deployment_id, lines=[{"text": "line 4"}, {"text": "line 5", "stream": "stderr"}])
            client.deployments.update(project_id, deployment_id, status="deploying")
            client.deployments.update(project_id, deployment_id, status="succeeded")

        for event in client.deployment_logs.follow(project_id, deployment_id):
            events.append(event)
            if event.type == "line" and event.line is not None and event.line.seq == 3:
                mover = threading.Thread(target=move)
                mover.start()
        assert mover is not None
        mover.join()
    assert _seqs(events) == [1, 2, 3, 4, 5]
    assert [e.line.text for e in events if e.line is not None] == [f"line {i}" for i in range(1, 6)]
    # The server reports the status it sees at each poll: quick changes may arrive as the last one.
    statuses = [e.deployment.status for e in events if e.deployment is not None]
    assert statuses and statuses[-1] == "succeeded"
    assert statuses == [s for s in ("building", "deploying", "succeeded") if s in statuses]
    assert events[-1] == LogEvent(type="end", status="succeeded", last_seq=5)


def test_after(harness: Harness) -> None:
    project_id = harness.info["api_key"]["project_id"]
    with _client(harness) as client:
        deployment_id = _deployment(client, project_id, 6)
        _finish(client, project_id, deployment_id)
        events = list(client.deployment_logs.follow(project_id, deployment_id, after=4))
    assert _seqs(events) == [5, 6]
    assert events[-1] == LogEvent(type="end", status="succeeded", last_seq=6)


def test_resumes_after_a_reset_and_a_closed_connection(harness: Harness) -> None:
    project_id = harness.info["api_key"]["project_id"]
    transport = CuttingTransport([(4, True), (3, False)])
    with _client(harness, transport) as client:
        deployment_id = _deployment(client, project_id, 12)
        _finish(client, project_id, deployment_id)
        events = list(client.deployment_logs.follow(project_id, deployment_id))
    assert _seqs(events) == list(range(1, 13))
    assert events[-1] == LogEvent(type="end", status="succeeded", last_seq=12)
    assert [h.get("last-event-id") for h in transport.streams] == [None, "4", "7"]
    assert all(h["authorization"] == f"Bearer {harness.info['api_key']['key']}" for h in transport.streams)


def test_gives_up_after_max_reconnects(harness: Harness) -> None:
    attempts: list[Any] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts.append(request)
        raise httpx.ConnectError("connection refused")

    with _client(harness, httpx.MockTransport(refuse)) as client:
        with pytest.raises(APIConnectionError) as caught:
            list(client.deployment_logs.follow("proj_x", "dep_x", max_reconnects=3))
    assert caught.value.code == "network_error"
    assert len(attempts) == 4


def test_an_answer_reconnecting_cannot_mend_is_raised_at_once(harness: Harness) -> None:
    transport = CuttingTransport([])
    with _client(harness, transport) as client:
        with pytest.raises(NotFoundError):
            list(client.deployment_logs.follow(harness.info["api_key"]["project_id"], "dep_doesnotexist"))
    assert len(transport.streams) == 1


def test_arguments_are_checked_at_the_call(harness: Harness) -> None:
    with _client(harness) as client:
        with pytest.raises(ValueError):
            client.deployment_logs.follow("proj_x", "dep_x", after=-1)


async def test_async_follow_resumes_and_ends(harness: Harness) -> None:
    project_id = harness.info["api_key"]["project_id"]
    with _client(harness) as sync:
        deployment_id = _deployment(sync, project_id, 10)
        _finish(sync, project_id, deployment_id)
    transport = AsyncCuttingTransport([(6, True)])
    async with AsyncSlipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], retry_policy=FAST, http_client=httpx.AsyncClient(transport=transport)) as client:
        events = [event async for event in client.deployment_logs.follow(project_id, deployment_id)]
    assert _seqs(events) == list(range(1, 11))
    assert events[-1] == LogEvent(type="end", status="succeeded", last_seq=10)
    assert [h.get("last-event-id") for h in transport.streams] == [None, "6"]


async def test_async_follow_is_cancelled_with_its_task(harness: Harness) -> None:
    project_id = harness.info["api_key"]["project_id"]
    with _client(harness) as sync:
        deployment_id = _deployment(sync, project_id, 2)
    seen: list[int] = []
    async with AsyncSlipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"]) as client:

        async def read() -> None:
            async for event in client.deployment_logs.follow(project_id, deployment_id):
                if event.line is not None:
                    seen.append(event.line.seq)

        task = asyncio.create_task(read())
        for _ in range(100):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert seen == [1, 2]
