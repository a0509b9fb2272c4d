"""Log in through the real pages with PKCE; refresh on expiry and on 401 invalid_token with exactly
SPEC §5.2's parameters."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from slipway import AuthenticationError, OAuth, OAuthError, Slipway

from .conftest import REDIRECT_URI, owner_oauth
from .harness import Harness, log_in


class RecordingTransport(httpx.HTTPTransport):
    """The real transport, remembering the form bodies sent to the token endpoint."""

    def __init__(self) -> None:
        super().__init__()
        self.token_requests: list[dict[str, list[str]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/token"):
            self.token_requests.append(parse_qs(request.read().decode(), keep_blank_values=True))
        return super().handle_request(request)


def test_authorization_url_uses_pkce_s256_and_state(harness: Harness) -> None:
    oauth = OAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI)
    request = oauth.authorization_url(scope="read write")
    url = urlsplit(request.url)
    params = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == harness.issuer + "/authorize"
    assert params["response_type"] == "code"
    assert params["client_id"] == harness.info["public_client"]["client_id"]
    assert params["redirect_uri"] == REDIRECT_URI
    assert params["scope"] == "read write"
    assert params["state"] == request.state and len(request.state) >= 20
    assert params["code_challenge_method"] == "S256"
    digest = hashlib.sha256(request.code_verifier.encode()).digest()
    assert params["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    # A second request gets a state and verifier of its own.
    again = oauth.authorization_url()
    assert again.state != request.state and again.code_verifier != request.code_verifier


def test_login_with_pkce_then_call_the_api_as_the_user(harness: Harness) -> None:
    stored: list[dict[str, Any]] = []
    oauth = owner_oauth(harness, on_token=stored.append)
    assert oauth.token is not None and oauth.token["refresh_token"]
    assert stored and stored[-1]["access_token"] == oauth.token["access_token"]
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        me = client.users.me()
    assert me.id == harness.info["owner"]["id"]
    assert me.email == harness.info["owner"]["email"]


def test_exchange_refuses_a_callback_with_another_state(harness: Harness) -> None:
    oauth = OAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI)
    request = oauth.authorization_url()
    owner = harness.info["owner"]
    callback = log_in(request.url, owner["email"], owner["password"], REDIRECT_URI)
    with pytest.raises(OAuthError):
        oauth.exchange_code(callback, state="not-the-state", code_verifier=request.code_verifier)
    assert oauth.token is None


def test_refreshes_an_expired_access_token_with_exactly_the_spec_parameters(harness: Harness) -> None:
    transport = RecordingTransport()
    stored: list[dict[str, Any]] = []
    oauth = owner_oauth(harness, transport=transport, on_token=stored.append)
    old = dict(oauth.token or {})
    transport.token_requests.clear()
    # The access token has expired (as after its hour): the next call refreshes first.
    assert oauth.token is not None
    oauth.token["expires_at"] = 1
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        assert client.users.me().id == harness.info["owner"]["id"]
    assert len(transport.token_requests) == 1
    assert transport.token_requests[0] == {
        "grant_type": ["refresh_token"],
        "refresh_token": [old["refresh_token"]],
        "client_id": [harness.info["public_client"]["client_id"]],
    }
    assert oauth.token["access_token"] != old["access_token"]
    # Slipway rotates refresh tokens: the new one is kept and handed to on_token for storage.
    assert oauth.token["refresh_token"] != old["refresh_token"]
    assert stored[-1]["refresh_token"] == oauth.token["refresh_token"]


def test_refreshes_once_on_401_invalid_token(harness: Harness) -> None:
    transport = RecordingTransport()
    oauth = owner_oauth(harness, transport=transport)
    assert oauth.token is not None
    refresh_token = oauth.token["refresh_token"]
    transport.token_requests.clear()
    # An access token the API refuses (revoked, or expired early) that the client still thinks is valid.
    oauth.token["access_token"] = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        assert client.projects.get(harness.info["project"]["id"]).id == harness.info["project"]["id"]
    assert transport.token_requests == [
        {"grant_type": ["refresh_token"], "refresh_token": [refresh_token], "client_id": [harness.info["public_client"]["client_id"]]}
    ]


def test_a_refused_refresh_surfaces_as_an_error(harness: Harness) -> None:
    oauth = OAuth(
        harness.issuer,
        harness.info["public_client"]["client_id"],
        token={"access_token": "not-a-token", "refresh_token": "not-a-refresh-token", "token_type": "Bearer", "expires_at": 1},
    )
    with Slipway(base_url=harness.base_url, oauth=oauth) as client, pytest.raises(OAuthError) as caught:
        client.users.me()
    assert caught.value.code == "invalid_grant"


def test_access_token_without_refresh_token_gets_authentication_error(harness: Harness) -> None:
    with Slipway(base_url=harness.base_url, access_token="not-a-token") as client, pytest.raises(AuthenticationError) as caught:
        client.users.me()
    assert caught.value.status == 401
    assert caught.value.code == "invalid_token"
    assert caught.value.request_id


def test_client_credentials_for_a_confidential_client_renewed_on_expiry(harness: Harness) -> None:
    transport = RecordingTransport()
    confidential = harness.info["confidential_client"]
    oauth = OAuth(harness.issuer, confidential["client_id"], client_secret=confidential["client_secret"], transport=transport)
    first = oauth.client_credentials(scope="read")
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        assert client.projects.get(harness.info["project"]["id"]).id == harness.info["project"]["id"]
        oauth.token["expires_at"] = 1  # type: ignore[index]
        assert client.projects.list().pagination.total >= 1
    assert [r["grant_type"] for r in transport.token_requests] == [["client_credentials"], ["client_credentials"]]
    assert transport.token_requests[0]["scope"] == ["read"]
    assert oauth.token is not None and oauth.token["access_token"] != first["access_token"]


def test_an_unreachable_authorization_server_is_the_sdks_network_error() -> None:
    import socket

    from slipway import APIConnectionError, ErrorCode

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    oauth = OAuth(
        f"http://127.0.0.1:{port}/oauth",
        "cli_x",
        token={"access_token": "expired", "refresh_token": "r", "token_type": "Bearer", "expires_at": 1},
    )
    with Slipway(base_url=f"http://127.0.0.1:{port}", oauth=oauth) as client, pytest.raises(APIConnectionError) as caught:
        client.users.me()
    assert (caught.value.code, caught.value.status) == (ErrorCode.NETWORK_ERROR, None)
