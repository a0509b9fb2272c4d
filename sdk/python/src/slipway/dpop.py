"""DPoP (RFC 9449): proofs of possession of a key pair, signed with the OS crypto (``cryptography``,
on OpenSSL).

A :class:`DPoPKey` is made once per session (``OAuth(..., dpop=True)``) or passed in
(``OAuth(..., dpop=DPoPKey.from_pem(...))``) to keep a session across restarts: a DPoP-bound refresh
token is useless without the key it is bound to.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import uuid
from typing import Any, Mapping

import httpx
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

__all__ = ["DPoPKey"]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class DPoPKey:
    """A DPoP key pair: ES256 (P-256, the default) or EdDSA (Ed25519). The private key never leaves
    the object except through :meth:`to_pem`, which the caller asks for explicitly."""

    def __init__(self, private_key: ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey) -> None:
        if isinstance(private_key, ec.EllipticCurvePrivateKey):
            if not isinstance(private_key.curve, ec.SECP256R1):
                raise ValueError("A DPoP EC key must be on P-256 (ES256).")
            numbers = private_key.public_key().public_numbers()
            self.alg = "ES256"
            self.public_jwk: dict[str, str] = {
                "kty": "EC",
                "crv": "P-256",
                "x": _b64url(numbers.x.to_bytes(32, "big")),
                "y": _b64url(numbers.y.to_bytes(32, "big")),
            }
        elif isinstance(private_key, ed25519.Ed25519PrivateKey):
            raw = private_key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            self.alg = "EdDSA"
            self.public_jwk = {"kty": "OKP", "crv": "Ed25519", "x": _b64url(raw)}
        else:
            raise TypeError("A DPoP key is a P-256 EC or an Ed25519 private key.")
        self._private_key = private_key

    @classmethod
    def generate(cls, alg: str = "ES256") -> DPoPKey:
        """A new key pair: ``"ES256"`` (P-256) or ``"EdDSA"`` (Ed25519)."""
        if alg == "ES256":
            return cls(ec.generate_private_key(ec.SECP256R1()))
        if alg in ("EdDSA", "Ed25519"):
            return cls(ed25519.Ed25519PrivateKey.generate())
        raise ValueError(f"Unsupported DPoP algorithm {alg!r}: use ES256 or EdDSA.")

    @classmethod
    def from_pem(cls, data: bytes, password: bytes | None = None) -> DPoPKey:
        """The key saved earlier with :meth:`to_pem` (PKCS#8 PEM, encrypted when ``password`` is given)."""
        key = serialization.load_pem_private_key(data, password=password)
        if not isinstance(key, (ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey)):
            raise TypeError("A DPoP key is a P-256 EC or an Ed25519 private key.")
        return cls(key)

    def to_pem(self, password: bytes | None = None) -> bytes:
        """The private key as PKCS#8 PEM, encrypted with ``password`` when given (store it as a secret:
        whoever has it can use the tokens bound to it)."""
        encryption: serialization.KeySerializationEncryption = (
            serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
        )
        return self._private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)

    @property
    def thumbprint(self) -> str:
        """The JWK SHA-256 thumbprint (RFC 7638): what a bound token's ``cnf.jkt`` names."""
        required = {k: self.public_jwk[k] for k in sorted(self.public_jwk)}
        canonical = json.dumps(required, separators=(",", ":"), sort_keys=True).encode()
        return _b64url(hashlib.sha256(canonical).digest())

    def proof(self, htm: str, htu: str, *, access_token: str | None = None, nonce: str | None = None) -> str:
        """A fresh proof JWT for one request: ``htm`` the method, ``htu`` the URL (its query and
        fragment are dropped), ``ath`` when an access token goes with it, ``nonce`` when the server gave one."""
        url = httpx.URL(htu)
        claims: dict[str, Any] = {
            "jti": str(uuid.uuid4()),
            "iat": int(time.time()),
            "htm": htm.upper(),
            "htu": str(url.copy_with(query=None, fragment=None)),
        }
        if access_token is not None:
            claims["ath"] = _b64url(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": self.alg, "jwk": self.public_jwk}
        signing_input = (
            _b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + _b64url(json.dumps(claims, separators=(",", ":")).encode())
        ).encode("ascii")
        if isinstance(self._private_key, ec.EllipticCurvePrivateKey):
            r, s = decode_dss_signature(self._private_key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        else:
            signature = self._private_key.sign(signing_input)
        return signing_input.decode("ascii") + "." + _b64url(signature)

    def __repr__(self) -> str:
        return f"DPoPKey(alg={self.alg!r}, thumbprint={self.thumbprint!r})"


def _origin(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


def wants_nonce(response: httpx.Response) -> bool:
    """A ``use_dpop_nonce`` answer (401 from a resource server, 400 from the token endpoint)."""
    if response.status_code not in (400, 401) or "dpop-nonce" not in response.headers:
        return False
    if "use_dpop_nonce" in response.headers.get("www-authenticate", ""):
        return True
    try:
        data = json.loads(response.content)
    except (ValueError, httpx.ResponseNotRead):
        return False
    if not isinstance(data, dict):
        return False
    error = data.get("error")
    code = error.get("code") if isinstance(error, dict) else error
    return code == "use_dpop_nonce"


class DPoPState:
    """One session's key and the latest nonce each server gave (per origin); thread-safe."""

    def __init__(self, key: DPoPKey) -> None:
        self.key = key
        self._nonces: dict[str, str] = {}
        self._lock = threading.Lock()

    def proof(self, htm: str, url: httpx.URL | str, access_token: str | None = None) -> str:
        url = httpx.URL(url)
        with self._lock:
            nonce = self._nonces.get(_origin(url))
        return self.key.proof(htm, str(url), access_token=access_token, nonce=nonce)

    def remember(self, url: httpx.URL | str, headers: Mapping[str, str]) -> None:
        nonce = headers.get("dpop-nonce")
        if nonce:
            with self._lock:
                self._nonces[_origin(httpx.URL(url))] = nonce

    def nonce_for(self, url: httpx.URL | str) -> str | None:
        with self._lock:
            return self._nonces.get(_origin(httpx.URL(url)))


class _TokenRequests:
    def __init__(self, state: DPoPState, token_endpoint: str) -> None:
        self._state = state
        self._endpoint = httpx.URL(token_endpoint)

    def applies(self, request: httpx.Request) -> bool:
        return request.method == "POST" and request.url.copy_with(query=None) == self._endpoint

    def sign(self, request: httpx.Request) -> httpx.Request:
        headers = request.headers.copy()
        headers["DPoP"] = self._state.proof("POST", request.url)
        return httpx.Request(request.method, request.url, headers=headers, content=request.content, extensions=request.extensions)


def _replay(response: httpx.Response, content: bytes, request: httpx.Request) -> httpx.Response:
    # The body is already decoded: keep every header but the encoding.
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in ("content-encoding", "content-length")]
    return httpx.Response(response.status_code, headers=headers, content=content, request=request)


class DPoPTokenTransport(httpx.BaseTransport):
    """Adds a proof to every token request (code exchange, refresh, client_credentials) and sends it
    again once, with the server's nonce, after a ``use_dpop_nonce`` answer."""

    def __init__(self, inner: httpx.BaseTransport, state: DPoPState, token_endpoint: str) -> None:
        self._inner = inner
        self._state = state
        self._token = _TokenRequests(state, token_endpoint)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if not self._token.applies(request):
            return self._inner.handle_request(request)
        request.read()
        response = self._inner.handle_request(self._token.sign(request))
        self._state.remember(request.url, response.headers)
        if response.status_code == 400 and "dpop-nonce" in response.headers:
            content = response.read()
            response.close()
            if not wants_nonce(response):
                return _replay(response, content, request)
            response = self._inner.handle_request(self._token.sign(request))
            self._state.remember(request.url, response.headers)
        return response

    def close(self) -> None:
        self._inner.close()


class AsyncDPoPTokenTransport(httpx.AsyncBaseTransport):
    """The same as :class:`DPoPTokenTransport` for ``AsyncOAuth``."""

    def __init__(self, inner: httpx.AsyncBaseTransport, state: DPoPState, token_endpoint: str) -> None:
        self._inner = inner
        self._state = state
        self._token = _TokenRequests(state, token_endpoint)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self._token.applies(request):
            return await self._inner.handle_async_request(request)
        await request.aread()
        response = await self._inner.handle_async_request(self._token.sign(request))
        self._state.remember(request.url, response.headers)
        if response.status_code == 400 and "dpop-nonce" in response.headers:
            content = await response.aread()
            await response.aclose()
            if not wants_nonce(response):
                return _replay(response, content, request)
            response = await self._inner.handle_async_request(self._token.sign(request))
            self._state.remember(request.url, response.headers)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
