"""Per-call options (idempotency_key, timeout, extra_headers, max_retries), the raw request, and the
error codes of failures that are not Slipway's JSON: every failure is a SlipwayError."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

import slipway._generated.client
from slipway import (
    APIConnectionError,
    InvalidResponseError,
    APITimeoutError,
    AsyncSlipway,
    ErrorCode,
    NotFoundError,
    ServerError,
    Slipway,
    SlipwayError,
)
from slipway.models import Project

from .harness import Harness
from .stubs import silent_server, static_server


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(slipway._generated.client, "_sleep", waits.append)
    return waits


def recording_client(harness: Harness, sent: list[httpx.Request], **kwargs: Any) -> Slipway:
    hooks = {"request": [sent.append]}
    return Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], http_client=httpx.Client(event_hooks=hooks), **kwargs)


def test_a_callers_idempotency_key_and_extra_headers_are_sent(harness: Harness, unique: str) -> None:
    sent: list[httpx.Request] = []
    project_id = harness.info["api_key"]["project_id"]
    with recording_client(harness, sent, default_headers={"X-Team": "a", "X-Trace-Id": "client"}) as client:
        key = f"deploy-{unique}"
        first = client.deployments.create(project_id, environment="production", branch=f"key-{unique}", idempotency_key=key, extra_headers={"X-Trace-Id": "call"})
        again = client.deployments.create(project_id, environment="production", branch=f"key-{unique}", idempotency_key=key)
        client.projects.get(project_id, extra_headers={"X-Other": "1"})
    assert first.id == again.id
    assert [r.headers.get("idempotency-key") for r in sent] == [key, key, None]
    assert [r.headers.get("x-trace-id") for r in sent] == ["call", "client", "client"]
    assert sent[0].headers["x-team"] == "a" and sent[2].headers["x-other"] == "1"
    # The same key with another body is the server's 422, not a second create.
    with Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"]) as client, pytest.raises(slipway.UnprocessableEntityError) as caught:
        client.deployments.create(project_id, environment="staging", branch=f"key-{unique}", idempotency_key=key)
    assert caught.value.code == ErrorCode.IDEMPOTENCY_KEY_REUSED


def test_concurrent_creates_with_one_callers_key_make_one_project(harness: Harness, admin_client: Slipway, unique: str) -> None:
    # Twelve clients (as twelve processes retrying the same work) send the same key at once.
    token = admin_client._token()
    name, key = f"py-concurrent-{unique}", f"concurrent-{unique}"
    ids: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(12)

    def create() -> None:
        try:
            with Slipway(base_url=harness.base_url, access_token=token, max_retries=5) as client:
                start.wait()
                ids.append(client.projects.create(name=name, idempotency_key=key).id)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=create) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == [] and len(ids) == 12 and len(set(ids)) == 1
    assert [p.id for p in admin_client.projects.list_all(per_page=100) if p.name == name] == ids[:1]


def test_per_call_max_retries_overrides_the_clients(no_sleep: list[float]) -> None:
    with silent_server() as stub:
        port = stub.base_url.rsplit(":", 1)[1]
    # The port is closed now: a connection error, which is retried.
    with Slipway(base_url=f"http://127.0.0.1:{port}", api_key="slw_x", max_retries=3) as client:
        with pytest.raises(APIConnectionError) as caught:
            client.projects.list(max_retries=0)
        assert no_sleep == [] and caught.value.code == ErrorCode.NETWORK_ERROR and caught.value.status is None
        with pytest.raises(APIConnectionError):
            client.projects.list(max_retries=1)
        assert len(no_sleep) == 1
        with pytest.raises(APIConnectionError):
            client.projects.list()
        assert len(no_sleep) == 1 + 3


def test_per_call_timeout_overrides_the_clients_and_a_timeout_is_not_retried() -> None:
    with silent_server() as stub, Slipway(base_url=stub.base_url, api_key="slw_x", timeout=60) as client:
        began = time.monotonic()
        with pytest.raises(APITimeoutError) as caught:
            client.projects.list(timeout=0.2)  # retries on (the client's 2), yet one attempt
        elapsed = time.monotonic() - began
        print(f"a 0.2 s per-call timeout ended the call after {elapsed:.2f} s")
        assert (caught.value.code, caught.value.status) == ("timeout", None) and isinstance(caught.value, SlipwayError)
        assert len(stub.connections) == 1


def test_a_post_without_an_idempotency_key_is_not_sent_twice(no_sleep: list[float]) -> None:
    sent: list[httpx.Request] = []

    def lose_the_response(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        raise httpx.ReadError("connection reset by peer", request=request)

    with Slipway(base_url="http://slipway.test", api_key="slw_x", http_client=httpx.Client(transport=httpx.MockTransport(lose_the_response))) as client:
        with pytest.raises(APIConnectionError):
            client.webhooks.ping("wh_x")  # may have run: not resent
        assert len(sent) == 1
        with pytest.raises(APIConnectionError):
            client.projects.create(name="x")  # a create carries a key: resent
        assert len(sent) == 1 + 3 and len({r.headers["idempotency-key"] for r in sent[1:]}) == 1
        with pytest.raises(APIConnectionError):
            client.request("POST", "/v1/webhooks/wh_x/ping")
        assert len(sent) == 5


def test_raw_requests(harness: Harness, admin_client: Slipway) -> None:
    project_id = harness.info["project"]["id"]
    raw = admin_client.request("GET", "/v1/projects", params={"per_page": 1})
    assert isinstance(raw, dict) and raw["pagination"]["per_page"] == 1 and len(raw["data"]) == 1
    typed = admin_client.request("GET", f"/v1/projects/{project_id}", cast=Project, timeout=10, max_retries=0)
    assert isinstance(typed, Project) and typed.id == project_id
    assert admin_client.request("get", f"/v1/projects/{project_id}")["id"] == project_id
    with pytest.raises(NotFoundError) as caught:
        admin_client.request("GET", "/v1/projects/proj_" + "0" * 26)
    assert caught.value.code == "not_found"
    # json= may hold datetimes (and models): sent as ISO 8601.
    expires = datetime.now(timezone.utc) + timedelta(days=1)
    issued = admin_client.request(
        "POST", f"/v1/projects/{project_id}/api_keys", json={"name": "raw", "scopes": ("read",), "expires_at": expires}, idempotency_key=f"raw-{uuid.uuid4()}"
    )
    assert issued["key"].startswith("slw_") and datetime.fromisoformat(issued["expires_at"].replace("Z", "+00:00")) == expires.replace(microsecond=expires.microsecond // 1000 * 1000)
    assert admin_client.api_keys.revoke(project_id, issued["id"]).status == "revoked"
    # An id is one path segment, whatever it holds.
    for odd in ("..", "a/../b", "x?y=1"):
        with pytest.raises(NotFoundError):
            admin_client.projects.get(odd)
    for path in ("https://elsewhere.example/v1/projects", "//elsewhere.example/v1/projects", "@elsewhere.example/v1", "v1/projects"):
        with pytest.raises(SlipwayError, match="path must start"):
            admin_client.request("GET", path)


async def test_async_raw_request(harness: Harness) -> None:
    async with AsyncSlipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"]) as client:
        project_id = harness.info["api_key"]["project_id"]
        typed = await client.request("GET", f"/v1/projects/{project_id}", cast=Project)
        assert typed.id == project_id
        with pytest.raises(SlipwayError, match="path must start"):
            await client.request("GET", "https://elsewhere.example/")


@pytest.mark.parametrize(
    ("status", "content_type", "body", "error", "code"),
    [
        (502, "text/html", "<h1>502 Bad Gateway</h1>", ServerError, "http_502"),
        (404, "text/plain", "no such route", NotFoundError, "http_404"),
        (500, "application/json", '{"message": "not ours"}', ServerError, "http_500"),
        (200, "text/html", "<html>a captive portal</html>", InvalidResponseError, "invalid_response"),
        (200, "application/json", '{"id": 5}', InvalidResponseError, "invalid_response"),
    ],
)
def test_responses_that_are_not_slipways_json(status: int, content_type: str, body: str, error: type[SlipwayError], code: str) -> None:
    with static_server(status, content_type, body) as stub, Slipway(base_url=stub.base_url, api_key="slw_x", max_retries=0) as client:
        with pytest.raises(SlipwayError) as caught:
            client.projects.get("proj_x")
        assert type(caught.value) is error and (caught.value.code, caught.value.status) == (code, status)
        with pytest.raises(SlipwayError) as listed:
            client.projects.list()
        assert type(listed.value) is error and listed.value.code == code
    assert ErrorCode.INVALID_RESPONSE == "invalid_response"


def test_unique_keys_are_generated_per_call() -> None:
    sent: list[httpx.Request] = []

    def created(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(201, json={"id": "proj_x"})

    with Slipway(base_url="http://slipway.test", api_key="slw_x", http_client=httpx.Client(transport=httpx.MockTransport(created))) as client:
        for _ in range(3):
            with pytest.raises(InvalidResponseError):
                client.projects.create(name="x")
    keys = [r.headers["idempotency-key"] for r in sent]
    assert len(set(keys)) == 3 and all(uuid.UUID(k) for k in keys)


@pytest.mark.parametrize("base_url", ["slipway.example.com", "ftp://slipway.example.com", "https://user:pw@slipway.example.com", "https://slipway.example.com/?x=1", "http://"])
def test_a_base_url_that_is_not_http_is_refused_up_front(base_url: str) -> None:
    with pytest.raises(SlipwayError, match="base_url"):
        Slipway(base_url=base_url, api_key="slw_x")
    with pytest.raises(SlipwayError, match="base_url"):
        AsyncSlipway(base_url=base_url, api_key="slw_x")


def test_an_unreadable_response_is_the_sdks_error_and_not_resent() -> None:
    sent: list[httpx.Request] = []

    def garbled(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"}, content=b"not gzip")

    with Slipway(base_url="http://slipway.test", api_key="slw_x", http_client=httpx.Client(transport=httpx.MockTransport(garbled))) as client:
        with pytest.raises(APIConnectionError) as caught:
            client.projects.list()
    assert caught.value.code == ErrorCode.NETWORK_ERROR and len(sent) == 1


def test_the_base_url_comes_from_slipway_url_and_the_old_name_warns(harness: Harness, info: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """SLIPWAY_URL is the one name of the three SDKs; SLIPWAY_BASE_URL (read up to 0.2) still works, with
    a FutureWarning naming the new one, until 0.4.0; base_url= always wins."""
    key, project_id = info["api_key"]["key"], info["api_key"]["project_id"]
    monkeypatch.delenv("SLIPWAY_BASE_URL", raising=False)
    monkeypatch.setenv("SLIPWAY_URL", harness.base_url)
    with Slipway(api_key=key) as client:
        assert client.base_url == harness.base_url.rstrip("/")
        assert client.projects.get(project_id).id == project_id
    with Slipway(base_url="https://slipway.example.com/", api_key=key) as client:
        assert client.base_url == "https://slipway.example.com"

    monkeypatch.delenv("SLIPWAY_URL")
    monkeypatch.setenv("SLIPWAY_BASE_URL", harness.base_url)
    with pytest.warns(FutureWarning, match="set SLIPWAY_URL") as caught:
        client = Slipway(api_key=key)
    # The warning points at the caller's line, not inside the SDK.
    assert caught[0].filename == __file__
    with client:
        assert client.projects.get(project_id).id == project_id
    with pytest.warns(FutureWarning):
        assert AsyncSlipway(api_key=key).base_url == harness.base_url.rstrip("/")

    monkeypatch.delenv("SLIPWAY_BASE_URL")
    with pytest.raises(SlipwayError, match="set SLIPWAY_URL"):
        Slipway(api_key=key)
