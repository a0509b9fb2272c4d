"""Error mapping, retries (network errors, 429 after Retry-After) with one Idempotency-Key per POST,
and timeouts."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import slipway
import slipway._client
from slipway import (
    APIConnectionError,
    APITimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    Slipway,
    SlipwayError,
    ValidationError,
)

from .harness import Harness


def test_not_found(api_client: Slipway, info: dict[str, Any]) -> None:
    missing = "dep_" + "0" * 26
    with pytest.raises(NotFoundError) as caught:
        api_client.deployments.get(info["project"]["id"], missing)
    err = caught.value
    assert (err.status, err.code) == (404, "not_found")
    assert err.message and err.request_id
    assert err.request_id == err.headers["x-request-id"]
    assert isinstance(err, SlipwayError)


def test_validation_failed_carries_details(api_client: Slipway, info: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as caught:
        api_client.deployments.create(info["project"]["id"], environment="Not An Env!", branch="main")
    err = caught.value
    assert (err.status, err.code) == (422, "validation_failed")
    assert [d["field"] for d in err.details] == ["environment"]
    assert err.details[0]["message"]


def test_insufficient_scope(api_client: Slipway, info: dict[str, Any]) -> None:
    # The harness's key has read + write; deleting a project needs admin.
    with pytest.raises(PermissionDeniedError) as caught:
        api_client.projects.delete(info["project"]["id"])
    assert (caught.value.status, caught.value.code) == (403, "insufficient_scope")
    assert api_client.projects.get(info["project"]["id"]).id == info["project"]["id"]


class DropFirstResponse(httpx.HTTPTransport):
    """The real transport; the first POST reaches the server and runs, but its response is lost on
    the way back, as when a connection drops."""

    def __init__(self) -> None:
        super().__init__()
        self.posts: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST":
            self.posts.append(request)
            if len(self.posts) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection reset by peer", request=request)
        return response


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(slipway._client, "_sleep", waits.append)
    return waits


def test_a_retried_post_creates_exactly_once(harness: Harness, admin_client: Slipway, unique: str, no_sleep: list[float]) -> None:
    transport = DropFirstResponse()
    name = f"py-once-{unique}"
    with Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], http_client=httpx.Client(transport=transport)) as client:
        project_id = harness.info["api_key"]["project_id"]
        deployment = client.deployments.create(project_id, environment="production", branch=name)
    assert len(transport.posts) == 2 and len(no_sleep) == 1
    keys = {r.headers["idempotency-key"] for r in transport.posts}
    assert len(keys) == 1 and len(keys.pop()) >= 32
    # The server ran the POST once: the retry was answered from its record of the first.
    same_branch = [d for d in admin_client.deployments.list_all(project_id, per_page=100) if d.branch == name]
    assert [d.id for d in same_branch] == [deployment.id]


def test_every_post_gets_its_own_idempotency_key(harness: Harness, unique: str) -> None:
    seen: list[str] = []
    hooks = {"request": [lambda request: seen.append(request.headers.get("idempotency-key", ""))]}
    with Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], http_client=httpx.Client(event_hooks=hooks)) as client:
        project_id = harness.info["api_key"]["project_id"]
        first = client.deployments.create(project_id, environment="production", branch=f"{unique}-a")
        second = client.deployments.create(project_id, environment="production", branch=f"{unique}-a")
        client.projects.get(project_id)
    assert first.id != second.id
    assert seen[0] and seen[1] and seen[0] != seen[1] and seen[2] == ""


@pytest.fixture(scope="module")
def limited() -> Iterator[Harness]:
    server = Harness("--rate-limit", "3")
    yield server
    server.stop()


def test_429_is_retried_after_retry_after(limited: Harness, no_sleep: list[float]) -> None:
    statuses: list[int] = []
    retry_afters: list[str] = []

    def record(response: httpx.Response) -> None:
        statuses.append(response.status_code)
        if response.status_code == 429:
            retry_afters.append(response.headers["retry-after"])

    http = httpx.Client(event_hooks={"response": [record]})
    project_id = limited.info["project"]["id"]
    # Retry-After here is the rest of the hour-long window; let the policy wait that long.
    policy = slipway.RetryPolicy(max_retries=2, max_retry_after=3600)
    with Slipway(base_url=limited.base_url, api_key=limited.info["api_key"]["key"], http_client=http, retry_policy=policy) as client:
        for _ in range(3):
            client.projects.get(project_id)
        with pytest.raises(RateLimitError) as caught:
            client.projects.get(project_id)
    assert statuses == [200, 200, 200, 429, 429, 429]
    # Each retry waited exactly what the server's Retry-After said.
    assert no_sleep == [float(v) for v in retry_afters[:2]] and all(w >= 1 for w in no_sleep)
    assert caught.value.code == "rate_limited" and caught.value.retry_after == float(retry_afters[-1])


def test_429_with_a_long_retry_after_is_not_waited_for_by_default(limited: Harness, no_sleep: list[float]) -> None:
    with Slipway(base_url=limited.base_url, api_key=limited.info["api_key"]["key"]) as client, pytest.raises(RateLimitError):
        client.projects.get(limited.info["project"]["id"])
    assert no_sleep == []


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_network_errors_are_retried_then_raised(no_sleep: list[float]) -> None:
    with Slipway(base_url=f"http://127.0.0.1:{_closed_port()}", api_key="slw_x", max_retries=3) as client:
        with pytest.raises(APIConnectionError) as caught:
            client.projects.list()
    assert len(no_sleep) == 3 and all(0 < w <= 8 for w in no_sleep)
    assert caught.value.status is None


def test_retries_can_be_turned_off(no_sleep: list[float]) -> None:
    with Slipway(base_url=f"http://127.0.0.1:{_closed_port()}", api_key="slw_x", max_retries=0) as client:
        with pytest.raises(APIConnectionError):
            client.projects.list()
    assert no_sleep == []


def test_timeout() -> None:
    # A listener that accepts connections and never answers.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with Slipway(base_url=base, api_key="slw_x", timeout=0.3, max_retries=0) as client, pytest.raises(APITimeoutError):
            client.projects.list()
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in accepted:
            conn.close()
        listener.close()
