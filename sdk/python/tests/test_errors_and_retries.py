"""Error mapping, retries (network errors, 429 after Retry-After) with one Idempotency-Key per POST,
and timeouts."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import slipway
import slipway._generated.client
from slipway import (
    APIConnectionError,
    APITimeoutError,
    ConflictError,
    NotFoundError,
    OAuth,
    PermissionDeniedError,
    RateLimitError,
    Slipway,
    SlipwayError,
    UnprocessableEntityError,
)

from .conftest import REDIRECT_URI
from .harness import Harness, log_in


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
    with pytest.raises(UnprocessableEntityError) as caught:
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
    monkeypatch.setattr(slipway._generated.client, "_sleep", waits.append)
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
    # 3 requests an hour, in a window that ends 6 s after the harness is up: a real Retry-After ≤ 6 s.
    server = Harness("--rate-limit", "3", "--rate-limit-reset-in", "6")
    yield server
    server.stop()


def test_429_is_retried_after_retry_after(limited: Harness) -> None:
    key, project_id = limited.info["api_key"]["key"], limited.info["project"]["id"]
    with Slipway(base_url=limited.base_url, api_key=key, max_retries=0) as no_retry:
        for _ in range(3):
            no_retry.projects.get(project_id)
        with pytest.raises(RateLimitError) as caught:
            no_retry.projects.get(project_id)
    retry_after = caught.value.retry_after
    assert caught.value.code == "rate_limited" and caught.value.status == 429
    assert retry_after is not None and 0 < retry_after <= 6

    # A Retry-After longer than the client will wait for is raised, not waited for.
    impatient = slipway.RetryPolicy(max_retries=3, max_retry_after=0)
    with Slipway(base_url=limited.base_url, api_key=key, retry_policy=impatient) as client, pytest.raises(RateLimitError):
        client.projects.get(project_id)

    sent: list[tuple[float, int, str | None]] = []
    hooks = {"response": [lambda response: sent.append((time.monotonic(), response.status_code, response.headers.get("retry-after")))]}
    with Slipway(base_url=limited.base_url, api_key=key, http_client=httpx.Client(event_hooks=hooks)) as patient:
        assert patient.projects.get(project_id).id == project_id
    assert [status for _, status, _ in sent] == [429, 200]
    # The retry went out no sooner than that 429 asked (whole seconds, rounded up by the server; less
    # than the first one's when the machine was slow to get here).
    asked = sent[0][2]
    assert asked is not None and sent[1][0] - sent[0][0] >= int(asked) - 1


def test_503_while_the_database_is_down_is_retried_and_creates_once(unique: str) -> None:
    outage = Harness()
    try:
        key, project_id = outage.info["api_key"]["key"], outage.info["api_key"]["project_id"]
        posts: list[tuple[int, str]] = []

        def record(response: httpx.Response) -> None:
            if response.request.method == "POST":
                posts.append((response.status_code, response.request.headers["idempotency-key"]))

        client = Slipway(base_url=outage.base_url, api_key=key, max_retries=5, http_client=httpx.Client(event_hooks={"response": [record]}))
        client.projects.get(project_id)
        assert outage.command("database stop") == {"database": "stopped"}
        result: dict[str, Any] = {}
        creating = threading.Thread(
            target=lambda: result.update(d=client.deployments.create(project_id, environment="production", branch=f"outage-{unique}")),
            daemon=True,
        )
        creating.start()
        for _ in range(300):
            if any(status == 503 for status, _ in posts):
                break
            time.sleep(0.1)
        assert outage.command("database start") == {"database": "started"}
        creating.join(timeout=60)
        deployment = result["d"]
        assert posts[0][0] == 503 and posts[-1][0] == 201
        assert len({key for _, key in posts}) == 1
        same = [d.id for d in client.deployments.list_all(project_id, branch=f"outage-{unique}")]
        assert same == [deployment.id]
        client.close()
    finally:
        outage.stop()


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
        # Per call: with_options shares the client and changes only the timeout and retries.
        with Slipway(base_url=base, api_key="slw_x") as client:
            quick = client.with_options(timeout=0.3, max_retries=0)
            with pytest.raises(APITimeoutError):
                quick.projects.list()
            assert client.retry_policy.max_retries == 2 and quick._http is client._http
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in accepted:
            conn.close()
        listener.close()


def test_forbidden_by_role(harness: Harness) -> None:
    # The viewer grants the app `write`, but a viewer's role allows reading only.
    oauth = OAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI)
    request = oauth.authorization_url(scope="read write")
    viewer = harness.info["viewer"]
    oauth.exchange_code(log_in(request.url, viewer["email"], viewer["password"], REDIRECT_URI), state=request.state, code_verifier=request.code_verifier)
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        assert client.projects.get(harness.info["project"]["id"]).id == harness.info["project"]["id"]
        with pytest.raises(PermissionDeniedError) as caught:
            client.projects.create(name="not-for-viewers")
    assert (caught.value.status, caught.value.code) == (403, "forbidden")


def test_conflict(admin_client: Slipway, unique: str) -> None:
    admin_client.projects.create(name=f"py-dup-{unique}")
    with pytest.raises(ConflictError) as caught:
        admin_client.projects.create(name=f"PY-DUP-{unique}")  # names are unique ignoring case
    assert (caught.value.status, caught.value.code) == (409, "conflict")
