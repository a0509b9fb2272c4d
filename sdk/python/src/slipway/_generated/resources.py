# File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.py.
# Do not edit: run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the server serves).
"""The API's resources for the synchronous client, one class per tag of the OpenAPI document.

Each method is one /v1 operation; ``list*`` return one page, ``list_all*`` iterate over every page.
Keyword arguments left out are not sent (``None`` is sent as JSON ``null`` where the API accepts it).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping, Sequence, cast

from .._base import NOT_GIVEN, RequestOptions, Timeout, body, path_id as _id, query
from .models import (
    ApiKey,
    Configuration,
    CreatedUser,
    Deployment,
    Event,
    IssuedApiKey,
    Membership,
    OAuthClient,
    Project,
    RegisteredOAuthClient,
    User,
    Webhook,
    WebhookDelivery,
    WebhookWithSecret,
)

if TYPE_CHECKING:
    from .client import Page, Slipway

__all__ = ['Projects', 'Deployments', 'Configurations', 'ApiKeys', 'Users', 'Accounts', 'OAuthClients', 'Events', 'Webhooks', 'Resources']


class Projects:
    """Projects: ``client.projects``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Project]:
        """List projects.

        Newest first. An API key sees only its own project.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/projects', Project, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Project]:
        """List projects.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/projects', Project, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, *, name: str, deploy_target: Literal['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] | None = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Project:
        """Create a project.

        Starts `active`. Names are unique in the account ignoring case. An API key belongs to one project and cannot create projects (`forbidden`).

        Only for user and client credentials.
        """
        return self._client._request('POST', '/v1/projects', Project, json=body(name=name, deploy_target=deploy_target), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Project:
        """Get a project."""
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}", Project, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, project_id: str, *, name: str = NOT_GIVEN, deploy_target: Literal['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku'] | None = NOT_GIVEN, status: Literal['active', 'paused', 'archived'] = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Project:
        """Update a project.

        Change `name`, `deploy_target` or `status`. Status moves: `active` ⇄ `paused`, `active`/`paused` → `archived`, `archived` → `active`; any other move is `invalid_transition`. An archived project accepts only `{"status": "active"}` (else `project_not_active`).
        """
        return self._client._request('PATCH', f"/v1/projects/{_id(project_id)}", Project, json=body(name=name, deploy_target=deploy_target, status=status), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, project_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete a project.

        Removes the project with its deployments and configurations, and revokes its API keys.
        """
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Deployments:
    """Deployments: ``client.deployments``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, environment: str | None = None, status: Literal['queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded'] | None = None, branch: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Deployment]:
        """List deployments of a project.

        Newest first; filter by `environment`, `status`, `branch`.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/deployments", Deployment, query(page=page, per_page=per_page, environment=environment, status=status, branch=branch), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, environment: str | None = None, status: Literal['queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded'] | None = None, branch: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Deployment]:
        """List deployments of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/deployments", Deployment, query(per_page=per_page, environment=environment, status=status, branch=branch), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, environment: str, branch: str, commit_sha: str | None = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Create a deployment.

        Queues a deployment of `branch` (optionally a `commit_sha`) to `environment`. Paused and archived projects refuse new deployments.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/deployments", Deployment, json=body(environment=environment, branch=branch, commit_sha=commit_sha), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, deployment_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Get a deployment."""
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, project_id: str, deployment_id: str, *, status: Literal['queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded'], status_message: str | None = NOT_GIVEN, url: str | None = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Report deployment progress.

        How an external deployer reports progress: `queued` → `building` → `deploying` → `succeeded`, or `failed`/`canceled` from any unfinished state. Other moves are `invalid_transition`. Repeating the current status only updates `status_message`/`url`.
        """
        return self._client._request('PATCH', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, json=body(status=status, status_message=status_message, url=url), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Configurations:
    """Configurations: ``client.configurations``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, environment: str | None = None, reveal: bool | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Configuration]:
        """List configuration variables of a project.

        Ordered by environment, then key; filter by `environment`.

        `?reveal=true` needs the admin scope (and, for a user, the admin or owner role); without it secret values are `null`.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/configurations", Configuration, query(page=page, per_page=per_page, environment=environment, reveal=reveal), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, environment: str | None = None, reveal: bool | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Configuration]:
        """List configuration variables of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/configurations", Configuration, query(per_page=per_page, environment=environment, reveal=reveal), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, environment: str, key: str, value: str, secret: bool = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Configuration:
        """Create a configuration variable.

        Adds `key` to `environment`. With `secret: true` the value is encrypted at rest and is never returned again except through `?reveal=true` (admin). Archived projects refuse it.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/configurations", Configuration, json=body(environment=environment, key=key, value=value, secret=secret), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, configuration_id: str, *, reveal: bool | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Configuration:
        """Get a configuration variable.

        `?reveal=true` needs the admin scope (and, for a user, the admin or owner role); without it secret values are `null`.
        """
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}", Configuration, params=query(reveal=reveal), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, project_id: str, configuration_id: str, *, value: str = NOT_GIVEN, secret: bool = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Configuration:
        """Update a configuration variable.

        Changes `value` and/or makes the variable secret. A secret cannot be made non-secret (`validation_failed` on `secret`): delete it and create it again. Archived projects refuse it.
        """
        return self._client._request('PATCH', f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}", Configuration, json=body(value=value, secret=secret), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, project_id: str, configuration_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete a configuration variable.

        Archived projects refuse it.
        """
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class ApiKeys:
    """API keys: ``client.api_keys``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, status: Literal['active', 'revoked'] | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[ApiKey]:
        """List API keys of a project.

        Oldest first, revoked keys included (filter with `status`). Never shows a secret.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(page=page, per_page=per_page, status=status), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, status: Literal['active', 'revoked'] | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[ApiKey]:
        """List API keys of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(per_page=per_page, status=status), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, name: str, scopes: Sequence[Literal['read', 'write', 'admin']], expires_at: datetime | str | None = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> IssuedApiKey:
        """Create an API key.

        A key acts as its project alone, with its scopes. The response is the only place the secret (`key`) ever appears: Slipway stores only its SHA-256. Archived projects refuse it.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/api_keys", IssuedApiKey, json=body(name=name, scopes=scopes, expires_at=expires_at), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, api_key_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> ApiKey:
        """Get an API key.

        Never shows the secret.

        Only for user and client credentials.
        """
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def revoke(self, project_id: str, api_key_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> ApiKey:
        """Revoke an API key.

        The key stops working at once on this instance and within 30 s on every other one; its secrets are deleted. It stays listed with `status: "revoked"`, so the answer is the revoked key (200), and revoking it again returns it unchanged. Allowed on archived projects too: removing access is never blocked.

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def rotate(self, project_id: str, api_key_id: str, *, grace_period_seconds: int = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> IssuedApiKey:
        """Rotate an API key.

        Issues a new secret for the same key id, working at once. The previous secret keeps working for `grace_period_seconds` (default 0: it stops now). Other keys are untouched. Revoked or expired keys cannot be rotated (`conflict`); archived projects refuse it.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}/rotate", IssuedApiKey, json=body(grace_period_seconds=grace_period_seconds), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Users:
    """Users: ``client.users``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[User]:
        """List users of the account.

        Oldest first.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/users', User, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[User]:
        """List users of the account.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/users', User, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, *, email: str, name: str, role: Literal['viewer', 'developer', 'admin', 'owner'], password: str = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> CreatedUser:
        """Invite someone to the account.

        Adds a user with `status: invited` and answers, once, `invitation_url`: the person opens it, signs in (or, new to Slipway, chooses a password; `password` here sets one for them instead) and accepts or declines; it expires after 7 days, and removing the user revokes it. Slipway sends no e-mail. The answer is the same whether or not the address signs in anywhere (docs/tenant-isolation.md). Only an owner may invite an owner. An e-mail already in the account is `conflict`.

        Only for user and client credentials.
        """
        return self._client._request('POST', '/v1/users', CreatedUser, json=body(email=email, name=name, role=role, password=password), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def me(self, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> User:
        """Get the signed-in user.

        A user removed a moment ago may still hold a working credential for a few seconds; reading them then is `not_found`.

        Only for user credentials.
        """
        return self._client._request('GET', '/v1/users/me', User, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def change_password(self, *, current_password: str, new_password: str, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Change your own password.

        Needs the current password (a wrong one, or a new password equal to it, is `validation_failed`). Any scope will do, so a viewer can change their own password too: the current password is the proof. Every other sign-in of the user ends at once: their other dashboard sessions, the grants of their apps (refresh and access tokens) and authorization-server sessions. The credential making the change (this session, or this app’s grant) keeps working.

        Only for user credentials.
        """
        return self._client._request('POST', '/v1/users/me/password', None, json=body(current_password=current_password, new_password=new_password), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, user_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> User:
        """Get a user.

        Only for user and client credentials.
        """
        return self._client._request('GET', f"/v1/users/{_id(user_id)}", User, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, user_id: str, *, name: str = NOT_GIVEN, role: Literal['viewer', 'developer', 'admin', 'owner'] = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> User:
        """Rename a user or change their role.

        Only an owner may grant `owner` or change an owner; the last owner cannot be demoted (`conflict`). A new role takes effect on the user’s existing tokens within 30 s.

        Only for user and client credentials.
        """
        return self._client._request('PATCH', f"/v1/users/{_id(user_id)}", User, json=body(name=name, role=role), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, user_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Remove a user.

        For an invited user, revokes the invitation. Otherwise revokes everything that lets the user act in this account (and nothing in the person’s other accounts): OAuth grants (their refresh tokens at once; their access tokens at once on the instance that removed them, within `REVOCATION_REFRESH_SECONDS` (15 s) elsewhere), sign-in and dashboard sessions, setup links. Only an owner may remove an owner; the last owner cannot be removed (`conflict`).

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/users/{_id(user_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Accounts:
    """Accounts: ``client.accounts``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Membership]:
        """List your accounts.

        Every account the signed-in person is a member of, with their role there, oldest first. The credential keeps acting in its own account (`current`); another account needs a sign-in to it.

        Only for user credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/accounts', Membership, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Membership]:
        """List your accounts.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/accounts', Membership, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class OAuthClients:
    """OAuth clients: ``client.oauth_clients``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[OAuthClient]:
        """List OAuth clients.

        Oldest first.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/oauth_clients', OAuthClient, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[OAuthClient]:
        """List OAuth clients.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/oauth_clients', OAuthClient, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, *, client_name: str, redirect_uris: Sequence[str] = NOT_GIVEN, token_endpoint_auth_method: Literal['none', 'client_secret_basic'] = NOT_GIVEN, grant_types: Sequence[Literal['authorization_code', 'refresh_token', 'client_credentials']] = NOT_GIVEN, scope: str = NOT_GIVEN, dpop_bound_access_tokens: bool = NOT_GIVEN, require_pushed_authorization_requests: bool = NOT_GIVEN, first_party: Literal[False] = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> RegisteredOAuthClient:
        """Register an OAuth client.

        RFC 7591 field names. A confidential client (`client_secret_basic`) gets a `client_secret`, shown in this response only. Every client uses PKCE (S256) for the authorization code flow; redirect URIs match exactly.

        Only for user and client credentials.
        """
        return self._client._request('POST', '/v1/oauth_clients', RegisteredOAuthClient, json=body(client_name=client_name, redirect_uris=redirect_uris, token_endpoint_auth_method=token_endpoint_auth_method, grant_types=grant_types, scope=scope, dpop_bound_access_tokens=dpop_bound_access_tokens, require_pushed_authorization_requests=require_pushed_authorization_requests, first_party=first_party), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, client_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> OAuthClient:
        """Get an OAuth client.

        Never shows the secret.

        Only for user and client credentials.
        """
        return self._client._request('GET', f"/v1/oauth_clients/{_id(client_id)}", OAuthClient, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, client_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete an OAuth client.

        Revokes every grant made to it: its refresh tokens stop working at once, and its access tokens (user and client_credentials) at once on the instance that deleted it and within `REVOCATION_REFRESH_SECONDS` (15 s) on the others.

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/oauth_clients/{_id(client_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def rotate_secret(self, client_id: str, *, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> RegisteredOAuthClient:
        """Rotate a client secret.

        A new `client_secret`, shown in this response only; the old one stops working at once on the instance that rotated it and within `PRINCIPAL_CACHE_SECONDS` (15 s) on the others. Public clients have no secret (`conflict`).

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/oauth_clients/{_id(client_id)}/rotate_secret", RegisteredOAuthClient, options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Events:
    """Events: ``client.events``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, type: Literal['project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled'] | None = None, project_id: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Event]:
        """List events (the audit log).

        Every change in the account, newest first: projects, deployments, configurations, API keys, users, OAuth clients. Filter by `type` and `project_id`.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/events', Event, query(page=page, per_page=per_page, type=type, project_id=project_id), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, type: Literal['project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled'] | None = None, project_id: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Event]:
        """List events (the audit log).

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/events', Event, query(per_page=per_page, type=type, project_id=project_id), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Webhooks:
    """Webhooks: ``client.webhooks``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Webhook]:
        """List webhooks.

        Oldest first. Secrets are never listed.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/webhooks', Webhook, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Webhook]:
        """List webhooks.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate('/v1/webhooks', Webhook, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, *, url: str, events: Sequence[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled']], description: str | None = NOT_GIVEN, status: Literal['enabled', 'disabled'] = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> WebhookWithSecret:
        """Create a webhook.

        The signing `secret` is in this response only. Each delivery is a `POST` of the event object (`WebhookPayload`) as JSON with the headers `Slipway-Event` (the type), `Slipway-Delivery` (the delivery id, the same on every retry and redelivery), `User-Agent` and `Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the whole whsec_… secret>`. For 24 h after a rotation there is a second `v1=`, made with the previous secret: accept the request when any `v1` matches (compare in constant time) and `t` is recent. An answer other than 2xx within 10 s (redirects are not followed) is retried with exponential backoff and jitter for 24 h; after 24 h of failures the endpoint is disabled and a `webhook.disabled` event records it.

        Only for user and client credentials.
        """
        return self._client._request('POST', '/v1/webhooks', WebhookWithSecret, json=body(url=url, events=events, description=description, status=status), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, webhook_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Webhook:
        """Get a webhook.

        Never shows the secret.

        Only for user and client credentials.
        """
        return self._client._request('GET', f"/v1/webhooks/{_id(webhook_id)}", Webhook, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, webhook_id: str, *, url: str = NOT_GIVEN, events: Sequence[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled']] = NOT_GIVEN, description: str | None = NOT_GIVEN, status: Literal['enabled', 'disabled'] = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Webhook:
        """Update a webhook.

        Change `url` (checked again), `events`, `description` or `status` (`enabled` | `disabled`).

        Only for user and client credentials.
        """
        return self._client._request('PATCH', f"/v1/webhooks/{_id(webhook_id)}", Webhook, json=body(url=url, events=events, description=description, status=status), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, webhook_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete a webhook.

        Removes it with its delivery log; pending deliveries are dropped.

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/webhooks/{_id(webhook_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def rotate_secret(self, webhook_id: str, *, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> WebhookWithSecret:
        """Rotate the signing secret.

        A new `secret`, in this response only. The previous secret keeps signing beside it for 24 h (a second `v1=` in `Slipway-Signature`), so receivers can roll over.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/webhooks/{_id(webhook_id)}/rotate_secret", WebhookWithSecret, options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def ping(self, webhook_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> WebhookDelivery:
        """Send a ping.

        Queues a `webhook.ping` event to the endpoint, whatever it subscribes to. A disabled endpoint is `conflict`.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/webhooks/{_id(webhook_id)}/ping", WebhookDelivery, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_deliveries(self, webhook_id: str, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[WebhookDelivery]:
        """List deliveries.

        The delivery log, newest first: the event, each attempt (status code, duration, error) and the next attempt time.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all_deliveries(self, webhook_id: str, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[WebhookDelivery]:
        """List deliveries.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def redeliver(self, webhook_id: str, delivery_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> WebhookDelivery:
        """Redeliver.

        Sends the delivery again: same `Slipway-Delivery` id and body, a new signature, retried like a new one. A delivery still pending, or an endpoint that is disabled, is `conflict`.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/webhooks/{_id(webhook_id)}/deliveries/{_id(delivery_id)}/redeliver", WebhookDelivery, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Resources:
    """The resource namespaces of :class:`~slipway.Slipway`."""

    projects: Projects
    deployments: Deployments
    configurations: Configurations
    api_keys: ApiKeys
    users: Users
    accounts: Accounts
    oauth_clients: OAuthClients
    events: Events
    webhooks: Webhooks

    def _bind_resources(self) -> None:
        client = cast("Slipway", self)
        self.projects = Projects(client)
        self.deployments = Deployments(client)
        self.configurations = Configurations(client)
        self.api_keys = ApiKeys(client)
        self.users = Users(client)
        self.accounts = Accounts(client)
        self.oauth_clients = OAuthClients(client)
        self.events = Events(client)
        self.webhooks = Webhooks(client)
