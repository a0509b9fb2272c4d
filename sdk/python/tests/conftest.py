from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from slipway import OAuth, Slipway

from .harness import Harness, log_in

# Any port on 127.0.0.1 is accepted for the loopback redirect URI (RFC 8252 §7.3).
REDIRECT_URI = "http://127.0.0.1:53682/callback"


@pytest.fixture(scope="session")
def harness() -> Iterator[Harness]:
    server = Harness()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def info(harness: Harness) -> dict[str, Any]:
    return harness.info


@pytest.fixture(scope="session")
def api_client(harness: Harness) -> Iterator[Slipway]:
    """The harness's API key (read + write on its project)."""
    with Slipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"]) as client:
        yield client


def owner_oauth(harness: Harness, **kwargs: Any) -> OAuth:
    """An OAuth helper holding the owner's tokens (read write admin), from a real PKCE login."""
    oauth = OAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI, **kwargs)
    request = oauth.authorization_url(scope="read write admin")
    owner = harness.info["owner"]
    callback = log_in(request.url, owner["email"], owner["password"], REDIRECT_URI)
    oauth.exchange_code(callback, state=request.state, code_verifier=request.code_verifier)
    return oauth


@pytest.fixture(scope="session")
def admin_client(harness: Harness) -> Iterator[Slipway]:
    """The owner, logged in through the real pages with PKCE: may do everything."""
    with Slipway(base_url=harness.base_url, oauth=owner_oauth(harness)) as client:
        yield client


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:10]
