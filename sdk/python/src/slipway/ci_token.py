"""CI without stored secrets: a CI job's OpenID Connect token (GitHub Actions, GitLab CI, …) exchanged at
Slipway's token endpoint (RFC 8693) for an access token of the project whose trust policy accepts it.

No client id, no secret. The answer's ``access_token`` goes to ``Slipway(access_token=...)`` as a Bearer
token (this helper does not bind it with DPoP yet); it lasts the policy's ``max_ttl_seconds`` (900 s by
default) and is not refreshed: exchange a fresh CI token for a longer job.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

from ._errors import APIConnectionError
from .oauth import OAuthError

__all__ = ["TOKEN_EXCHANGE_GRANT", "JWT_TOKEN_TYPE", "read_ci_token", "exchange_ci_token"]

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"


def _unavailable(message: str, status: int | None = None) -> OAuthError:
    return OAuthError(message, code="ci_token_unavailable", status=status)


def read_ci_token(
    *,
    token: str | None = None,
    token_file: str | os.PathLike[str] | None = None,
    github: bool = False,
    github_audience: str | None = None,
    http_client: httpx.Client | None = None,
) -> str:
    """The CI's OIDC token from exactly one of ``token`` (the JWT), ``token_file`` (a file holding it;
    surrounding whitespace ignored) or ``github=True`` (GitHub Actions' token service:
    ``GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=<github_audience>`` with
    ``Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN``; the job needs ``permissions: id-token: write``)."""
    if sum([token is not None, token_file is not None, bool(github)]) != 1:
        raise TypeError("give exactly one of token, token_file or github")
    if token is not None:
        value = token.strip()
    elif token_file is not None:
        try:
            value = Path(token_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            raise _unavailable(f"Could not read the CI token file {token_file}: {err}") from err
    else:
        value = _github_token(github_audience, http_client)
    if not value:
        raise _unavailable("The CI token is empty.")
    return value


def _github_token(audience: str | None, http_client: httpx.Client | None) -> str:
    request_url = os.environ.get("ACTIONS_ID_TOKEN_REQUEST_URL", "").strip()
    request_token = os.environ.get("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "").strip()
    if not request_url or not request_token:
        raise _unavailable("ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN are not set: run in GitHub Actions with `permissions: id-token: write`.")
    url = httpx.URL(request_url)
    if audience:
        url = url.copy_set_param("audience", audience)
    client = http_client or httpx.Client(timeout=10)
    try:
        response = client.get(url, headers={"authorization": f"Bearer {request_token}", "accept": "application/json"})
    except httpx.HTTPError as err:
        raise _unavailable(f"Could not reach GitHub's token service: {err}") from err
    finally:
        if http_client is None:
            client.close()
    if response.status_code != 200:
        raise _unavailable(f"GitHub's token service answered {response.status_code}.", response.status_code)
    try:
        value = response.json().get("value")
    except ValueError:
        value = None
    if not isinstance(value, str):
        raise _unavailable("GitHub's token service answered without a token (no `value`).", response.status_code)
    return value


def exchange_ci_token(
    base_url: str,
    *,
    token: str | None = None,
    token_file: str | os.PathLike[str] | None = None,
    github: bool = False,
    github_audience: str | None = None,
    project: str | None = None,
    scope: str | None = None,
    http_client: httpx.Client | None = None,
) -> dict[str, Any]:
    """Exchanges a CI job's OIDC token (see :func:`read_ci_token`; with ``github=True`` the audience asked
    for is ``github_audience`` or ``base_url``) and returns the token endpoint's answer:
    ``{access_token, issued_token_type, token_type, expires_in, scope}``. ``project`` (``proj_…``) is sent
    as ``audience``, needed only when policies of several projects accept the token. A refusal raises
    :class:`~slipway.OAuthError` with the server's code (``invalid_grant``, ``invalid_target``, ``invalid_scope``)."""
    base = base_url.rstrip("/")
    subject = read_ci_token(token=token, token_file=token_file, github=github, github_audience=github_audience or base, http_client=http_client)
    form = {"grant_type": TOKEN_EXCHANGE_GRANT, "subject_token": subject, "subject_token_type": JWT_TOKEN_TYPE}
    if project:
        form["audience"] = project
    if scope:
        form["scope"] = scope
    client = http_client or httpx.Client(timeout=30)
    try:
        response = client.post(f"{base}/oauth/token", data=form, headers={"accept": "application/json"})
    except httpx.HTTPError as err:
        raise APIConnectionError(f"Could not reach the authorization server: {err}", code="network_error") from err
    finally:
        if http_client is None:
            client.close()
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.status_code != 200 or not isinstance(body, dict) or not isinstance(body.get("access_token"), str):
        code = body.get("error") if isinstance(body, dict) else None
        description = body.get("error_description") if isinstance(body, dict) else None
        raise OAuthError(str(description or code or f"The token endpoint answered {response.status_code}."), code=str(code or f"http_{response.status_code}"), status=response.status_code)
    return body
