"""exchange_ci_token: the two requests a CI job makes, over real HTTP to a loopback server standing in
for GitHub Actions' token service and Slipway's token endpoint (the exchange against the real server and a
CI issuer is the server's and the CLI's suites): the Bearer request token and the audience asked of GitHub,
the RFC 8693 form without client authentication, the refusal as an OAuthError with the server's code."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from slipway import JWT_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT, OAuthError, exchange_ci_token, read_ci_token


class _Fake:
    def __init__(self) -> None:
        self.forms: list[dict[str, list[str]]] = []
        self.url = ""


@pytest.fixture
def fake() -> Iterator[_Fake]:
    state = _Fake()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _json(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # GitHub Actions' token service
            url = urlsplit(self.path)
            if url.path != "/_apis/token" or self.headers.get("authorization") != "Bearer ghs_request":
                return self._json(403, {})
            self._json(200, {"count": 1, "value": "jwt-for-" + parse_qs(url.query)["audience"][0]})

        def do_POST(self) -> None:  # the token endpoint
            form = parse_qs(self.rfile.read(int(self.headers["content-length"])).decode())
            state.forms.append(form)
            if form["subject_token"] == ["refused"]:
                return self._json(400, {"error": "invalid_grant", "error_description": "The subject token is not acceptable."})
            self._json(200, {"access_token": "at", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer", "expires_in": 900, "scope": "read write"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def test_token_string_and_file(fake: _Fake, tmp_path: Path) -> None:
    answer = exchange_ci_token(fake.url + "/", token=" jwt \n", project="proj_1", scope="write")
    assert answer["access_token"] == "at" and answer["expires_in"] == 900
    assert fake.forms[-1] == {"grant_type": [TOKEN_EXCHANGE_GRANT], "subject_token": ["jwt"], "subject_token_type": [JWT_TOKEN_TYPE], "audience": ["proj_1"], "scope": ["write"]}
    file = tmp_path / "token"
    file.write_text("\nfrom-file\n")
    exchange_ci_token(fake.url, token_file=file)
    assert fake.forms[-1]["subject_token"] == ["from-file"]
    with pytest.raises(OAuthError) as missing:
        read_ci_token(token_file=tmp_path / "missing")
    assert missing.value.code == "ci_token_unavailable"
    with pytest.raises(TypeError):
        read_ci_token(token="a", github=True)


def test_github_token_service(fake: _Fake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", fake.url + "/_apis/token?api-version=2.0")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ghs_request")
    exchange_ci_token(fake.url, github=True)
    assert fake.forms[-1]["subject_token"] == ["jwt-for-" + fake.url]
    exchange_ci_token(fake.url, github=True, github_audience="https://other.example.com")
    assert fake.forms[-1]["subject_token"] == ["jwt-for-https://other.example.com"]
    sent = len(fake.forms)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ghs_wrong")
    with pytest.raises(OAuthError) as refused:
        exchange_ci_token(fake.url, github=True)
    assert (refused.value.code, refused.value.status) == ("ci_token_unavailable", 403)
    assert len(fake.forms) == sent  # nothing exchanged without a CI token


def test_refusal_is_the_servers_code(fake: _Fake) -> None:
    with pytest.raises(OAuthError) as refused:
        exchange_ci_token(fake.url, token="refused")
    assert (refused.value.code, refused.value.status, refused.value.message) == ("invalid_grant", 400, "The subject token is not acceptable.")
