"""The async client: the same operations with await / async for, OAuth refresh, retries."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import slipway
import slipway._generated.async_client
from slipway import AsyncOAuth, AsyncSlipway, NotFoundError, PermissionDeniedError, UnprocessableEntityError

from .conftest import REDIRECT_URI
from .harness import Harness, log_in


async def test_api_key_crud_and_async_iteration(harness: Harness, unique: str) -> None:
    project_id = harness.info["api_key"]["project_id"]
    async with AsyncSlipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"]) as client:
        made = [await client.deployments.create(project_id, environment="preview", branch=f"async-{unique}-{i}") for i in range(3)]
        page = await client.deployments.list(project_id, environment="preview", per_page=2)
        assert page.pagination.total >= 3 and len(page.data) == 2
        nxt = await page.next_page()
        assert nxt is not None and nxt.pagination.page == 2
        ids = [d.id async for d in client.deployments.list_all(project_id, environment="preview", per_page=2)]
        assert {d.id for d in made} <= set(ids) and len(ids) == len(set(ids)) == page.pagination.total

        cfg = await client.configurations.create(project_id, environment="preview", key=f"ASYNC_{unique}", value="1")
        assert (await client.configurations.update(project_id, cfg.id, value="2")).value == "2"
        await client.configurations.delete(project_id, cfg.id)
        with pytest.raises(NotFoundError) as missing:
            await client.configurations.get(project_id, cfg.id)
        assert missing.value.code == "not_found"
        with pytest.raises(UnprocessableEntityError) as invalid:
            await client.deployments.create(project_id, environment="preview", branch="bad..branch")
        assert [d["field"] for d in invalid.value.details] == ["branch"]
        with pytest.raises(PermissionDeniedError) as denied:
            await client.projects.delete(project_id)
        assert denied.value.code == "insufficient_scope"


class RecordingTransport(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.token_requests: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/token"):
            self.token_requests.append(await request.aread())
        return await super().handle_async_request(request)


async def test_pkce_login_and_refresh(harness: Harness, unique: str) -> None:
    transport = RecordingTransport()
    stored: list[dict[str, Any]] = []

    async def store(token: dict[str, Any]) -> None:
        stored.append(token)

    oauth = AsyncOAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI, transport=transport, on_token=store)
    request = oauth.authorization_url(scope="read write admin")
    owner = harness.info["owner"]
    callback = log_in(request.url, owner["email"], owner["password"], REDIRECT_URI)
    await oauth.exchange_code(callback, state=request.state, code_verifier=request.code_verifier)
    assert stored and oauth.token is not None
    first = dict(oauth.token)
    async with AsyncSlipway(base_url=harness.base_url, oauth=oauth) as client:
        assert (await client.users.me()).id == owner["id"]
        oauth.token["expires_at"] = 1
        project = await client.projects.create(name=f"py-async-{unique}")
        assert oauth.token["access_token"] != first["access_token"]
        # Admin operations through the user's token.
        users = [u.id async for u in client.users.list_all(per_page=1)]
        assert owner["id"] in users
        await client.projects.delete(project.id)
    assert len(transport.token_requests) == 2  # the code exchange, then one refresh
    from urllib.parse import parse_qs

    assert parse_qs(transport.token_requests[1].decode()) == {
        "grant_type": ["refresh_token"],
        "refresh_token": [first["refresh_token"]],
        "client_id": [harness.info["public_client"]["client_id"]],
    }
    assert stored[-1]["refresh_token"] == oauth.token["refresh_token"] != first["refresh_token"]
    await oauth.aclose()


async def test_retries_network_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(slipway._generated.async_client, "_sleep", record)
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with AsyncSlipway(base_url=f"http://127.0.0.1:{port}", api_key="slw_x", max_retries=2) as client:
        with pytest.raises(slipway.APIConnectionError):
            await client.projects.get("proj_x")
    assert len(waits) == 2


async def test_client_credentials(harness: Harness) -> None:
    confidential = harness.info["confidential_client"]
    oauth = AsyncOAuth(harness.issuer, confidential["client_id"], client_secret=confidential["client_secret"])
    first = await oauth.client_credentials(scope="read")
    async with AsyncSlipway(base_url=harness.base_url, oauth=oauth) as client:
        oauth.token["expires_at"] = 1  # type: ignore[index]
        assert (await client.projects.get(harness.info["project"]["id"])).id == harness.info["project"]["id"]
    assert oauth.token is not None and oauth.token["access_token"] != first["access_token"]
    await oauth.aclose()
