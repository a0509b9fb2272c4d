"""OAuth 2.0 for applications acting for a user: Authorization Code + PKCE (S256) with state, code
exchange, and refresh, on authlib's httpx integration.

Endpoints are the issuer's ``/authorize`` and ``/token`` (Slipway's issuer is ``{base_url}/oauth``).
A refresh sends exactly ``grant_type=refresh_token``, ``refresh_token`` and ``client_id`` (no scope),
as the API's specification says; Slipway rotates refresh tokens, so every refresh keeps the new one
and reports it to ``on_token`` for the application to store.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import warnings

import httpx

# authlib announces, on import, that its httpx integration will move to httpx2; this SDK is built on
# httpx, which authlib still supports. Keep that notice out of applications' logs.
with warnings.catch_warnings():
    import authlib.deprecate  # noqa: F401  (installs its own "always" filter; ours must come after it)

    warnings.filterwarnings("ignore", message="The httpx module is deprecated")
    from authlib.common.security import generate_token
    from authlib.integrations.base_client.errors import OAuthError as _AuthlibOAuthError
    from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuth2Client
    from authlib.oauth2.rfc6749 import OAuth2Token

from ._errors import APIConnectionError, APITimeoutError, AuthenticationError, SlipwayError
from .dpop import AsyncDPoPTokenTransport, DPoPKey, DPoPState, DPoPTokenTransport, wants_nonce

DEFAULT_SCOPE = "read write"


class OAuthError(SlipwayError):
    """The authorization server refused a request (``code`` is the OAuth ``error``), or the callback
    did not match (wrong ``state``, an ``error`` in the redirect)."""


@dataclass(frozen=True)
class AuthorizationRequest:
    """Where to send the user, and what to keep (server-side, per login) until the callback."""

    url: str
    state: str
    code_verifier: str


def _session_kwargs(issuer: str, client_id: str, client_secret: str | None, redirect_uri: str | None) -> dict[str, Any]:
    # No `scope` here: authlib would add it to every refresh, and a refresh carries only the three
    # parameters of SPEC §5.2.
    return {
        "client_id": client_id,
        "client_secret": client_secret,
        "token_endpoint_auth_method": "client_secret_basic" if client_secret else "none",
        "redirect_uri": redirect_uri,
        "code_challenge_method": "S256",
        "token_endpoint": issuer.rstrip("/") + "/token",
        "leeway": 30,
    }


def _as_error(err: Exception) -> SlipwayError:
    if isinstance(err, httpx.TimeoutException):
        return APITimeoutError(f"Timed out talking to the authorization server: {type(err).__name__}: {err}")
    if isinstance(err, httpx.RequestError):
        return APIConnectionError(f"No response from the authorization server: {type(err).__name__}: {err}")
    if isinstance(err, _AuthlibOAuthError):
        return OAuthError(err.description or err.error or "OAuth error", code=err.error)
    return OAuthError(str(err) or type(err).__name__)


def _dpop_state(dpop: bool | DPoPKey) -> DPoPState | None:
    if isinstance(dpop, DPoPKey):
        return DPoPState(dpop)
    return DPoPState(DPoPKey.generate()) if dpop else None


class _OAuthBase:
    def __init__(self, issuer: str, client_id: str, on_token: Callable[[dict[str, Any]], Any] | None, dpop: bool | DPoPKey) -> None:
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self._on_token = on_token
        self._client_credentials_scope: str | None = None
        self._dpop = _dpop_state(dpop)

    @property
    def dpop_key(self) -> DPoPKey | None:
        """The DPoP key this session's tokens are bound to (``None`` without ``dpop=``). Keep it with
        the tokens (``dpop_key.to_pem(password)``) to resume the session after a restart."""
        return self._dpop.key if self._dpop is not None else None

    def _current_token(self) -> dict[str, Any] | None:
        raise NotImplementedError

    def auth_headers(self, access_token: str, method: str, url: str | httpx.URL) -> dict[str, str]:
        """The headers that send ``access_token`` with one request: ``Authorization: DPoP`` and a fresh
        proof (``htm``, ``htu``, ``ath``, the server's latest nonce) for a DPoP-bound token, else Bearer."""
        token = self._current_token() or {}
        # A session's tokens are all bound or all not (a refresh in another thread may already have
        # replaced access_token: its type still says how to send it).
        bound = str(token.get("token_type", "")).lower() == "dpop"
        if self._dpop is None or not bound:
            return {"Authorization": f"Bearer {access_token}"}
        return {"Authorization": f"DPoP {access_token}", "DPoP": self._dpop.proof(method, url, access_token)}

    def wants_dpop_nonce(self, response: httpx.Response) -> bool:
        """Keeps the server's ``DPoP-Nonce``; True for a ``use_dpop_nonce`` answer (worth one more try
        with a proof carrying it)."""
        if self._dpop is None:
            return False
        self._dpop.remember(response.request.url, response.headers)
        return wants_nonce(response)

    @property
    def authorization_endpoint(self) -> str:
        return self.issuer + "/authorize"

    @property
    def token_endpoint(self) -> str:
        return self.issuer + "/token"

    def _authorization_request(self, session: OAuth2Client | AsyncOAuth2Client, scope: str, extra: dict[str, Any]) -> AuthorizationRequest:
        verifier = generate_token(64)
        url, state = session.create_authorization_url(self.authorization_endpoint, code_verifier=verifier, scope=scope, **extra)
        return AuthorizationRequest(url=url, state=state, code_verifier=verifier)

    @staticmethod
    def _check_callback(callback_url: str) -> None:
        params = httpx.URL(callback_url).params
        if "error" in params:
            raise OAuthError(params.get("error_description") or params["error"], code=params["error"])


class OAuth(_OAuthBase):
    """Synchronous OAuth helper; pass it to ``Slipway(oauth=...)`` to call the API as the user.

    ``token`` is a token response you stored earlier (``access_token``, ``refresh_token``,
    ``expires_at``); ``on_token(token)`` is called with every new token (exchange and refresh).

    ``dpop=True`` binds the tokens to a key pair made for this session (DPoP, RFC 9449): every token
    request carries a proof, and the client sends a bound token as ``Authorization: DPoP`` with a fresh
    proof per request. ``dpop=DPoPKey.from_pem(...)`` uses a key you kept (see :attr:`dpop_key`).
    """

    def __init__(
        self,
        issuer: str,
        client_id: str,
        *,
        redirect_uri: str | None = None,
        client_secret: str | None = None,
        token: dict[str, Any] | None = None,
        on_token: Callable[[dict[str, Any]], Any] | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        dpop: bool | DPoPKey = False,
    ) -> None:
        super().__init__(issuer, client_id, on_token, dpop)
        self._lock = threading.Lock()
        if self._dpop is not None:
            transport = DPoPTokenTransport(transport or httpx.HTTPTransport(), self._dpop, self.token_endpoint)
        self._session = OAuth2Client(
            **_session_kwargs(self.issuer, client_id, client_secret, redirect_uri),
            token=token,
            update_token=self._updated,
            timeout=timeout,
            transport=transport,
        )

    def _current_token(self) -> dict[str, Any] | None:
        token: dict[str, Any] | None = self._session.token
        return token

    def _updated(self, token: dict[str, Any], refresh_token: str | None = None, access_token: str | None = None) -> None:
        if self._on_token:
            self._on_token(dict(token))

    @property
    def token(self) -> OAuth2Token | None:
        return self._session.token

    def authorization_url(self, scope: str = DEFAULT_SCOPE, **extra: Any) -> AuthorizationRequest:
        """Builds the authorization URL with a fresh ``state`` and PKCE S256 ``code_challenge``."""
        return self._authorization_request(self._session, scope, extra)

    def exchange_code(self, callback_url: str, *, state: str, code_verifier: str) -> OAuth2Token:
        """Checks ``state`` in the callback URL and trades its ``code`` (with the verifier) for tokens."""
        self._check_callback(callback_url)
        try:
            token = self._session.fetch_token(authorization_response=callback_url, state=state, code_verifier=code_verifier)
        except Exception as err:  # authlib raises its own errors and MismatchingStateException
            raise _as_error(err) from err
        self._updated(token)
        return token

    def client_credentials(self, scope: str = DEFAULT_SCOPE) -> OAuth2Token:
        """For a confidential client (``client_secret=``) acting for its own account: gets a token with
        the client_credentials grant, and gets a new one the same way whenever it expires."""
        with self._lock:
            self._client_credentials_scope = scope
            return self._renew(None)

    def _renew(self, token: OAuth2Token | None) -> OAuth2Token:
        try:
            if token is not None and token.get("refresh_token"):
                return self._session.refresh_token(self.token_endpoint, refresh_token=token["refresh_token"])
            if self._client_credentials_scope is not None:
                new = self._session.fetch_token(self.token_endpoint, grant_type="client_credentials", scope=self._client_credentials_scope)
                self._updated(new)
                return new
        except Exception as err:  # authlib's errors, as OAuthError
            raise _as_error(err) from err
        raise AuthenticationError("The access token is no longer valid and there is no refresh token.", code="invalid_token", status=401)

    def refresh(self, *, if_access_token: str | None = None) -> OAuth2Token:
        """Refreshes now. With ``if_access_token``, only if that is still the current access token
        (another thread may have refreshed already: a rotated refresh token must not be reused)."""
        with self._lock:
            token = self._session.token
            if token is not None and if_access_token is not None and token.get("access_token") != if_access_token:
                return token
            return self._renew(token)

    def access_token(self) -> str:
        """The current access token, renewed first when it has expired (or is about to)."""
        with self._lock:
            token = self._session.token
            if token is None:
                raise AuthenticationError("Not logged in: exchange a code first (or pass token=).", code="unauthorized", status=401)
            if token.is_expired(leeway=self._session.leeway) and (token.get("refresh_token") or self._client_credentials_scope is not None):
                token = self._renew(token)
            return str(token["access_token"])

    def close(self) -> None:
        self._session.close()


class AsyncOAuth(_OAuthBase):
    """The same as :class:`OAuth` for ``AsyncSlipway``; ``on_token`` may be a coroutine function."""

    def __init__(
        self,
        issuer: str,
        client_id: str,
        *,
        redirect_uri: str | None = None,
        client_secret: str | None = None,
        token: dict[str, Any] | None = None,
        on_token: Callable[[dict[str, Any]], Any | Awaitable[Any]] | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        dpop: bool | DPoPKey = False,
    ) -> None:
        super().__init__(issuer, client_id, on_token, dpop)
        self._lock = asyncio.Lock()
        if self._dpop is not None:
            transport = AsyncDPoPTokenTransport(transport or httpx.AsyncHTTPTransport(), self._dpop, self.token_endpoint)
        self._session = AsyncOAuth2Client(
            **_session_kwargs(self.issuer, client_id, client_secret, redirect_uri),
            token=token,
            update_token=self._updated,
            timeout=timeout,
            transport=transport,
        )

    def _current_token(self) -> dict[str, Any] | None:
        token: dict[str, Any] | None = self._session.token
        return token

    async def _updated(self, token: dict[str, Any], refresh_token: str | None = None, access_token: str | None = None) -> None:
        if self._on_token:
            result = self._on_token(dict(token))
            if asyncio.iscoroutine(result):
                await result

    @property
    def token(self) -> OAuth2Token | None:
        return self._session.token

    def authorization_url(self, scope: str = DEFAULT_SCOPE, **extra: Any) -> AuthorizationRequest:
        return self._authorization_request(self._session, scope, extra)

    async def exchange_code(self, callback_url: str, *, state: str, code_verifier: str) -> OAuth2Token:
        self._check_callback(callback_url)
        try:
            token = await self._session.fetch_token(authorization_response=callback_url, state=state, code_verifier=code_verifier)
        except Exception as err:
            raise _as_error(err) from err
        await self._updated(token)
        return token

    async def client_credentials(self, scope: str = DEFAULT_SCOPE) -> OAuth2Token:
        async with self._lock:
            self._client_credentials_scope = scope
            return await self._renew(None)

    async def _renew(self, token: OAuth2Token | None) -> OAuth2Token:
        try:
            if token is not None and token.get("refresh_token"):
                return await self._session.refresh_token(self.token_endpoint, refresh_token=token["refresh_token"])
            if self._client_credentials_scope is not None:
                new = await self._session.fetch_token(self.token_endpoint, grant_type="client_credentials", scope=self._client_credentials_scope)
                await self._updated(new)
                return new
        except Exception as err:
            raise _as_error(err) from err
        raise AuthenticationError("The access token is no longer valid and there is no refresh token.", code="invalid_token", status=401)

    async def refresh(self, *, if_access_token: str | None = None) -> OAuth2Token:
        async with self._lock:
            token = self._session.token
            if token is not None and if_access_token is not None and token.get("access_token") != if_access_token:
                return token
            return await self._renew(token)

    async def access_token(self) -> str:
        async with self._lock:
            token = self._session.token
            if token is None:
                raise AuthenticationError("Not logged in: exchange a code first (or pass token=).", code="unauthorized", status=401)
            if token.is_expired(leeway=self._session.leeway) and (token.get("refresh_token") or self._client_credentials_scope is not None):
                token = await self._renew(token)
            return str(token["access_token"])

    async def aclose(self) -> None:
        await self._session.aclose()


def expires_at_from(token: dict[str, Any]) -> float | None:
    """When a token response's access token expires (epoch seconds), if it says."""
    if "expires_at" in token:
        return float(token["expires_at"])
    if "expires_in" in token:
        return time.time() + float(token["expires_in"])
    return None
