"""DPoP (RFC 9449) with ``OAuth(..., dpop=True)``: proofs on token requests and API calls, nonce
retries (against a local stub), and the full flow against the live server: a bound login, /v1
calls, an unrotated refresh, and what a copied token or refresh token is refused."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from slipway import AsyncOAuth, AsyncSlipway, AuthenticationError, DPoPKey, OAuth, OAuthError, Slipway

from .conftest import REDIRECT_URI, owner_oauth
from .harness import Harness, log_in

FAR_FUTURE = 4_000_000_000


def b64url_decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def decode_proof(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The proof's header and claims, after checking its ES256 signature with the key in its header."""
    header_b64, claims_b64, signature_b64 = proof.split(".")
    header = json.loads(b64url_decode(header_b64))
    claims = json.loads(b64url_decode(claims_b64))
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    jwk = header["jwk"]
    assert set(jwk) == {"kty", "crv", "x", "y"}, "only the public key is in the proof"
    public = ec.EllipticCurvePublicNumbers(
        int.from_bytes(b64url_decode(jwk["x"]), "big"), int.from_bytes(b64url_decode(jwk["y"]), "big"), ec.SECP256R1()
    ).public_key()
    raw = b64url_decode(signature_b64)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if wrong
    return header, claims


def ath(token: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()


# -- a local stub that answers from a script -----------------------------------------------------


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class ScriptedServer:
    base_url: str
    answers: list[tuple[int, dict[str, str], Any]]
    seen: list[Seen] = field(default_factory=list)
    default: tuple[int, dict[str, str], Any] = (200, {}, {})


@contextmanager
def scripted_server(*answers: tuple[int, dict[str, str], Any]) -> Iterator[ScriptedServer]:
    """Answers each request with the next scripted (status, headers, JSON body), then with 200 {}."""
    lock = threading.Lock()
    holder: list[ScriptedServer] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            stub = holder[0]
            with lock:
                stub.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, headers, payload = stub.answers.pop(0) if stub.answers else stub.default
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(ScriptedServer(f"http://127.0.0.1:{server.server_address[1]}", list(answers)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)


def bound_oauth(base_url: str, key: DPoPKey, **token: Any) -> OAuth:
    return OAuth(
        base_url + "/oauth",
        "cli_stub",
        token={"access_token": "at-1", "refresh_token": "rt-1", "token_type": "DPoP", "expires_at": FAR_FUTURE, **token},
        dpop=key,
    )


USE_NONCE_401 = {"WWW-Authenticate": 'DPoP realm="slipway", algs="ES256 Ed25519 EdDSA", error="use_dpop_nonce"', "DPoP-Nonce": "nonce-1"}
USE_NONCE_BODY = {"error": {"code": "use_dpop_nonce", "message": "use the nonce", "request_id": "req_1"}}


def test_each_api_call_carries_a_fresh_proof_with_htm_htu_ath() -> None:
    key = DPoPKey.generate()
    with scripted_server() as stub, Slipway(base_url=stub.base_url, oauth=bound_oauth(stub.base_url, key)) as client:
        client.request("GET", "/v1/projects", params={"page": 2})
        client.request("GET", "/v1/projects", params={"page": 2})
        client.request("POST", "/v1/projects", json={"name": "x"})
        client.request("DELETE", "/v1/projects/proj_1")
    assert [(s.method, s.path) for s in stub.seen] == [
        ("GET", "/v1/projects?page=2"),
        ("GET", "/v1/projects?page=2"),
        ("POST", "/v1/projects"),
        ("DELETE", "/v1/projects/proj_1"),
    ]
    jtis = set()
    for seen in stub.seen:
        assert seen.headers["authorization"] == "DPoP at-1"
        header, claims = decode_proof(seen.headers["dpop"])
        assert header["jwk"] == key.public_jwk
        assert claims["htm"] == seen.method
        assert claims["htu"] == stub.base_url + seen.path.split("?")[0]  # without the query
        assert claims["ath"] == ath("at-1")
        assert "nonce" not in claims and isinstance(claims["iat"], int)
        jtis.add(claims["jti"])
    assert len(jtis) == len(stub.seen), "jti is unique per request"


def test_an_unbound_token_stays_bearer_even_with_dpop_on() -> None:
    key = DPoPKey.generate()
    with scripted_server() as stub, Slipway(base_url=stub.base_url, oauth=bound_oauth(stub.base_url, key, token_type="Bearer")) as client:
        client.request("GET", "/v1/users/me")
    assert stub.seen[0].headers["authorization"] == "Bearer at-1"
    assert "dpop" not in stub.seen[0].headers


def test_use_dpop_nonce_on_the_api_is_retried_once_and_the_nonce_remembered() -> None:
    key = DPoPKey.generate()
    with scripted_server((401, USE_NONCE_401, USE_NONCE_BODY), (200, {"DPoP-Nonce": "nonce-2"}, {})) as stub:
        with Slipway(base_url=stub.base_url, oauth=bound_oauth(stub.base_url, key)) as client:
            assert client.request("GET", "/v1/users/me") == {}
            client.request("GET", "/v1/projects")
    nonces = [decode_proof(s.headers["dpop"])[1].get("nonce") for s in stub.seen]
    # First without; the retry with the nonce it was given; the next call with the latest nonce.
    assert nonces == [None, "nonce-1", "nonce-2"]
    assert len({decode_proof(s.headers["dpop"])[1]["jti"] for s in stub.seen}) == 3


def test_use_dpop_nonce_twice_is_the_sdks_error() -> None:
    key = DPoPKey.generate()
    answers = [(401, USE_NONCE_401, USE_NONCE_BODY)] * 3
    with scripted_server(*answers) as stub, Slipway(base_url=stub.base_url, oauth=bound_oauth(stub.base_url, key)) as client:
        with pytest.raises(AuthenticationError) as caught:
            client.users.me()
    assert (caught.value.status, caught.value.code) == (401, "use_dpop_nonce")
    assert len(stub.seen) == 2, "retried once, not more"


def test_token_endpoint_use_dpop_nonce_is_retried_with_the_nonce() -> None:
    key = DPoPKey.generate()
    token_answer = {"access_token": "at-2", "token_type": "DPoP", "expires_in": 600, "scope": "read"}
    with scripted_server(
        (400, {"DPoP-Nonce": "nonce-t"}, {"error": "use_dpop_nonce", "error_description": "nonce required"}),
        (200, {}, token_answer),
    ) as stub:
        oauth = bound_oauth(stub.base_url, key, expires_at=1)
        token = oauth.refresh()
    assert token["access_token"] == "at-2" and token["refresh_token"] == "rt-1", "not rotated: the same refresh token is kept"
    assert [(s.method, s.path) for s in stub.seen] == [("POST", "/oauth/token")] * 2
    claims = [decode_proof(s.headers["dpop"])[1] for s in stub.seen]
    assert [c.get("nonce") for c in claims] == [None, "nonce-t"]
    assert all(c["htm"] == "POST" and c["htu"] == stub.base_url + "/oauth/token" and "ath" not in c for c in claims)
    assert claims[0]["jti"] != claims[1]["jti"]
    assert stub.seen[1].body == stub.seen[0].body and "grant_type=refresh_token" in stub.seen[0].body


async def test_async_client_sends_proofs_and_retries_the_nonce() -> None:
    key = DPoPKey.generate()
    with scripted_server((401, USE_NONCE_401, USE_NONCE_BODY)) as stub:
        oauth = AsyncOAuth(stub.base_url + "/oauth", "cli_stub", token={"access_token": "at-1", "token_type": "DPoP", "expires_at": FAR_FUTURE}, dpop=key)
        async with AsyncSlipway(base_url=stub.base_url, oauth=oauth) as client:
            await client.request("PATCH", "/v1/projects/proj_1", json={"name": "y"})
    claims = [decode_proof(s.headers["dpop"])[1] for s in stub.seen]
    assert [(c["htm"], c["htu"], c["ath"], c.get("nonce")) for c in claims] == [
        ("PATCH", stub.base_url + "/v1/projects/proj_1", ath("at-1"), None),
        ("PATCH", stub.base_url + "/v1/projects/proj_1", ath("at-1"), "nonce-1"),
    ]


def test_a_key_survives_pem_round_trips() -> None:
    key = DPoPKey.generate()
    again = DPoPKey.from_pem(key.to_pem(b"correct horse"), b"correct horse")
    assert again.public_jwk == key.public_jwk and again.thumbprint == key.thumbprint
    assert DPoPKey.from_pem(key.to_pem()).thumbprint == key.thumbprint
    assert b"ENCRYPTED" in key.to_pem(b"pw")
    ed = DPoPKey.generate("EdDSA")
    assert ed.alg == "EdDSA" and ed.public_jwk["crv"] == "Ed25519"
    assert DPoPKey.from_pem(ed.to_pem()).public_jwk == ed.public_jwk


# -- the live server -------------------------------------------------------------------------------


class RecordingTransport(httpx.HTTPTransport):
    """The real transport, remembering the DPoP header of each token request."""

    def __init__(self) -> None:
        super().__init__()
        self.token_proofs: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/token"):
            self.token_proofs.append(request.headers.get("dpop"))
        return super().handle_request(request)


def jwt_claims(token: str) -> dict[str, Any]:
    claims: dict[str, Any] = json.loads(b64url_decode(token.split(".")[1]))
    return claims


def test_dpop_login_api_refresh_and_what_a_copy_cannot_do(harness: Harness) -> None:
    transport = RecordingTransport()
    oauth = owner_oauth(harness, dpop=True, transport=transport)
    key = oauth.dpop_key
    assert key is not None and oauth.token is not None
    # The code exchange carried a proof; the tokens are bound to the session's key.
    assert len(transport.token_proofs) == 1 and transport.token_proofs[0] is not None
    assert decode_proof(transport.token_proofs[0])[1]["htu"] == harness.issuer + "/token"
    assert oauth.token["token_type"] == "DPoP"
    access_token = oauth.token["access_token"]
    assert jwt_claims(access_token)["cnf"] == {"jkt": key.thumbprint}
    refresh_token = oauth.token["refresh_token"]

    sent: list[httpx.Headers] = []
    http = httpx.Client(timeout=30, event_hooks={"request": [lambda r: sent.append(r.headers)]})
    with Slipway(base_url=harness.base_url, oauth=oauth, http_client=http) as client:
        assert client.users.me().email == harness.info["owner"]["email"]
        assert client.projects.get(harness.info["project"]["id"]).id == harness.info["project"]["id"]
        assert all(h["authorization"] == f"DPoP {access_token}" and h["dpop"] for h in sent)

        # Refresh: a proof of the same key; a new access token, the same (unrotated) refresh token.
        oauth.refresh()
        assert len(transport.token_proofs) == 2 and transport.token_proofs[1] is not None
        assert oauth.token["access_token"] != access_token
        assert oauth.token["refresh_token"] == refresh_token
        assert jwt_claims(oauth.token["access_token"])["cnf"] == {"jkt": key.thumbprint}
        assert client.users.me().email == harness.info["owner"]["email"]
    http.close()
    current = oauth.token["access_token"]

    # The same access token without a proof (as Bearer) is refused.
    raw = httpx.get(harness.base_url + "/v1/users/me", headers={"Authorization": f"Bearer {current}"}, timeout=30)
    print("bound token as Bearer:", raw.status_code, raw.headers.get("www-authenticate"))
    assert raw.status_code == 401
    with Slipway(base_url=harness.base_url, access_token=current) as plain, pytest.raises(AuthenticationError) as caught:
        plain.users.me()
    assert caught.value.status == 401

    # A thief's own key does not match the token's cnf.jkt: the SDK's error with the server's code.
    thief = OAuth(harness.issuer, harness.info["public_client"]["client_id"], token=dict(oauth.token), dpop=True)
    with Slipway(base_url=harness.base_url, oauth=thief) as stolen, pytest.raises(AuthenticationError) as caught:
        stolen.users.me()
    assert (caught.value.status, caught.value.code) == (401, "invalid_dpop_proof")

    # The refresh token without the key: a plain refresh (no proof) is refused.
    plain_refresh = httpx.post(
        harness.issuer + "/token",
        data={"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": harness.info["public_client"]["client_id"]},
        timeout=30,
    )
    print("bound refresh token without a proof:", plain_refresh.status_code, plain_refresh.text)
    assert plain_refresh.status_code == 400
    unbound = OAuth(harness.issuer, harness.info["public_client"]["client_id"], token=dict(oauth.token))
    with pytest.raises(OAuthError) as refused:
        unbound.refresh()
    assert refused.value.code == plain_refresh.json()["error"]
    # ... and with another key, too.
    with pytest.raises(OAuthError):
        thief.refresh()
    # The owner's session still works after all of that.
    with Slipway(base_url=harness.base_url, oauth=oauth) as client:
        assert client.users.me().email == harness.info["owner"]["email"]


def test_many_concurrent_calls_each_with_a_fresh_proof(harness: Harness) -> None:
    oauth = owner_oauth(harness, dpop=True)
    with Slipway(base_url=harness.base_url, oauth=oauth) as client, ThreadPoolExecutor(max_workers=16) as pool:
        emails = list(pool.map(lambda _: client.users.me().email, range(48)))
    assert emails == [harness.info["owner"]["email"]] * 48


def test_a_kept_key_resumes_the_session_after_a_restart(harness: Harness) -> None:
    first = owner_oauth(harness, dpop=True)
    assert first.dpop_key is not None and first.token is not None
    saved_pem, saved_token = first.dpop_key.to_pem(b"secret"), dict(first.token)
    first.close()
    # A new process: the same key and tokens; an expired access token is refreshed with the key.
    resumed = OAuth(
        harness.issuer,
        harness.info["public_client"]["client_id"],
        token={**saved_token, "expires_at": 1},
        dpop=DPoPKey.from_pem(saved_pem, b"secret"),
    )
    with Slipway(base_url=harness.base_url, oauth=resumed) as client:
        assert client.users.me().email == harness.info["owner"]["email"]
    assert resumed.token is not None and resumed.token["access_token"] != saved_token["access_token"]
    assert resumed.token["refresh_token"] == saved_token["refresh_token"]


async def test_async_dpop_login_and_refresh(harness: Harness) -> None:
    oauth = AsyncOAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI, dpop=True)
    request = oauth.authorization_url(scope="read write")
    owner = harness.info["owner"]
    callback = log_in(request.url, owner["email"], owner["password"], REDIRECT_URI)
    token = await oauth.exchange_code(callback, state=request.state, code_verifier=request.code_verifier)
    assert token["token_type"] == "DPoP" and oauth.dpop_key is not None
    async with AsyncSlipway(base_url=harness.base_url, oauth=oauth) as client:
        assert (await client.users.me()).email == owner["email"]
        refreshed = await oauth.refresh()
        assert refreshed["refresh_token"] == token["refresh_token"] and refreshed["access_token"] != token["access_token"]
        assert (await client.users.me()).email == owner["email"]
    await oauth.aclose()
