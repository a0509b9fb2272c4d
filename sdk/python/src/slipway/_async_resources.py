"""Generated from resources.py by scripts/unasync.py: do not edit.

The API's resources for the asynchronous client: ``client.projects``, ``client.deployments``, ...

Each method is one /v1 operation; ``list`` returns one page, ``list_all`` a generator over every page.
Keyword arguments left out are not sent (``None`` is sent as JSON ``null`` where the API accepts it).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, AsyncIterator, Literal, Sequence
from urllib.parse import quote

from ._base import NOT_GIVEN, body, query
from ._generated.models import (
    ApiKey,
    Configuration,
    CreatedUser,
    Deployment,
    Event,
    IssuedApiKey,
    OAuthClient,
    Project,
    RegisteredOAuthClient,
    User,
    Webhook,
    WebhookDelivery,
    WebhookWithSecret,
)

if TYPE_CHECKING:
    from ._async_client import AsyncPage, AsyncSlipway

Scope = Literal["read", "write", "admin"]
Role = Literal["viewer", "developer", "admin", "owner"]
WebhookStatus = Literal["enabled", "disabled"]


def _id(value: str) -> str:
    return quote(value, safe="")


def _iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


class _Resource:
    def __init__(self, client: AsyncSlipway) -> None:
        self._client = client


class AsyncProjects(_Resource):
    async def list(self, *, page: int | None = None, per_page: int | None = None) -> AsyncPage[Project]:
        return await self._client._get_page("/v1/projects", Project, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> AsyncIterator[Project]:
        return self._client._iterate("/v1/projects", Project, query(per_page=per_page))

    async def create(self, *, name: str, deploy_target: str | None = NOT_GIVEN) -> Project:
        return await self._client._request("POST", "/v1/projects", Project, json=body(name=name, deploy_target=deploy_target))

    async def get(self, project_id: str) -> Project:
        return await self._client._request("GET", f"/v1/projects/{_id(project_id)}", Project)

    async def update(self, project_id: str, *, name: str = NOT_GIVEN, deploy_target: str | None = NOT_GIVEN, status: str = NOT_GIVEN) -> Project:
        return await self._client._request("PATCH", f"/v1/projects/{_id(project_id)}", Project, json=body(name=name, deploy_target=deploy_target, status=status))

    async def delete(self, project_id: str) -> None:
        return await self._client._request("DELETE", f"/v1/projects/{_id(project_id)}", None)


class AsyncDeployments(_Resource):
    async def list(self, project_id: str, *, environment: str | None = None, status: str | None = None, branch: str | None = None, page: int | None = None, per_page: int | None = None) -> AsyncPage[Deployment]:
        params = query(environment=environment, status=status, branch=branch, page=page, per_page=per_page)
        return await self._client._get_page(f"/v1/projects/{_id(project_id)}/deployments", Deployment, params)

    def list_all(self, project_id: str, *, environment: str | None = None, status: str | None = None, branch: str | None = None, per_page: int | None = None) -> AsyncIterator[Deployment]:
        params = query(environment=environment, status=status, branch=branch, per_page=per_page)
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/deployments", Deployment, params)

    async def create(self, project_id: str, *, environment: str, branch: str, commit_sha: str | None = NOT_GIVEN) -> Deployment:
        return await self._client._request("POST", f"/v1/projects/{_id(project_id)}/deployments", Deployment, json=body(environment=environment, branch=branch, commit_sha=commit_sha))

    async def get(self, project_id: str, deployment_id: str) -> Deployment:
        return await self._client._request("GET", f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment)

    async def update(self, project_id: str, deployment_id: str, *, status: str, status_message: str | None = NOT_GIVEN, url: str | None = NOT_GIVEN) -> Deployment:
        payload = body(status=status, status_message=status_message, url=url)
        return await self._client._request("PATCH", f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, json=payload)


class AsyncConfigurations(_Resource):
    async def list(self, project_id: str, *, environment: str | None = None, reveal: bool | None = None, page: int | None = None, per_page: int | None = None) -> AsyncPage[Configuration]:
        params = query(environment=environment, reveal=reveal, page=page, per_page=per_page)
        return await self._client._get_page(f"/v1/projects/{_id(project_id)}/configurations", Configuration, params)

    def list_all(self, project_id: str, *, environment: str | None = None, reveal: bool | None = None, per_page: int | None = None) -> AsyncIterator[Configuration]:
        params = query(environment=environment, reveal=reveal, per_page=per_page)
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/configurations", Configuration, params)

    async def create(self, project_id: str, *, environment: str, key: str, value: str, secret: bool = NOT_GIVEN) -> Configuration:
        payload = body(environment=environment, key=key, value=value, secret=secret)
        return await self._client._request("POST", f"/v1/projects/{_id(project_id)}/configurations", Configuration, json=payload)

    async def get(self, project_id: str, configuration_id: str, *, reveal: bool | None = None) -> Configuration:
        path = f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}"
        return await self._client._request("GET", path, Configuration, params=query(reveal=reveal))

    async def update(self, project_id: str, configuration_id: str, *, value: str = NOT_GIVEN, secret: bool = NOT_GIVEN) -> Configuration:
        path = f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}"
        return await self._client._request("PATCH", path, Configuration, json=body(value=value, secret=secret))

    async def delete(self, project_id: str, configuration_id: str) -> None:
        return await self._client._request("DELETE", f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}", None)


class AsyncApiKeys(_Resource):
    async def list(self, project_id: str, *, status: str | None = None, page: int | None = None, per_page: int | None = None) -> AsyncPage[ApiKey]:
        return await self._client._get_page(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(status=status, page=page, per_page=per_page))

    def list_all(self, project_id: str, *, status: str | None = None, per_page: int | None = None) -> AsyncIterator[ApiKey]:
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(status=status, per_page=per_page))

    async def create(self, project_id: str, *, name: str, scopes: Sequence[Scope], expires_at: datetime | str | None = NOT_GIVEN) -> IssuedApiKey:
        """Creates a key; the returned ``key`` is its secret, shown this once."""
        payload = body(name=name, scopes=list(scopes), expires_at=expires_at if expires_at is NOT_GIVEN else _iso(expires_at))
        return await self._client._request("POST", f"/v1/projects/{_id(project_id)}/api_keys", IssuedApiKey, json=payload)

    async def get(self, project_id: str, api_key_id: str) -> ApiKey:
        return await self._client._request("GET", f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey)

    async def revoke(self, project_id: str, api_key_id: str) -> ApiKey:
        return await self._client._request("DELETE", f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey)

    async def rotate(self, project_id: str, api_key_id: str, *, grace_period_seconds: int = NOT_GIVEN) -> IssuedApiKey:
        """Issues a new secret for the key (same id); the old one works ``grace_period_seconds`` more."""
        path = f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}/rotate"
        return await self._client._request("POST", path, IssuedApiKey, json=body(grace_period_seconds=grace_period_seconds))


class AsyncUsers(_Resource):
    async def list(self, *, page: int | None = None, per_page: int | None = None) -> AsyncPage[User]:
        return await self._client._get_page("/v1/users", User, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> AsyncIterator[User]:
        return self._client._iterate("/v1/users", User, query(per_page=per_page))

    async def create(self, *, email: str, name: str, role: Role, password: str = NOT_GIVEN) -> CreatedUser:
        return await self._client._request("POST", "/v1/users", CreatedUser, json=body(email=email, name=name, role=role, password=password))

    async def me(self) -> User:
        return await self._client._request("GET", "/v1/users/me", User)

    async def change_password(self, *, current_password: str, new_password: str) -> None:
        return await self._client._request("POST", "/v1/users/me/password", None, json=body(current_password=current_password, new_password=new_password))

    async def get(self, user_id: str) -> User:
        return await self._client._request("GET", f"/v1/users/{_id(user_id)}", User)

    async def update(self, user_id: str, *, name: str = NOT_GIVEN, role: Role = NOT_GIVEN) -> User:
        return await self._client._request("PATCH", f"/v1/users/{_id(user_id)}", User, json=body(name=name, role=role))

    async def delete(self, user_id: str) -> None:
        return await self._client._request("DELETE", f"/v1/users/{_id(user_id)}", None)


class AsyncOAuthClients(_Resource):
    async def list(self, *, page: int | None = None, per_page: int | None = None) -> AsyncPage[OAuthClient]:
        return await self._client._get_page("/v1/oauth_clients", OAuthClient, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> AsyncIterator[OAuthClient]:
        return self._client._iterate("/v1/oauth_clients", OAuthClient, query(per_page=per_page))

    async def create(
        self,
        *,
        client_name: str,
        redirect_uris: Sequence[str] = NOT_GIVEN,
        token_endpoint_auth_method: Literal["none", "client_secret_basic"] = NOT_GIVEN,
        grant_types: Sequence[Literal["authorization_code", "refresh_token", "client_credentials"]] = NOT_GIVEN,
        scope: str = NOT_GIVEN,
        first_party: bool = NOT_GIVEN,
    ) -> RegisteredOAuthClient:
        """Registers a client; a confidential one's ``client_secret`` is shown this once."""
        payload: dict[str, Any] = body(
            client_name=client_name,
            redirect_uris=list(redirect_uris) if redirect_uris is not NOT_GIVEN else NOT_GIVEN,
            token_endpoint_auth_method=token_endpoint_auth_method,
            grant_types=list(grant_types) if grant_types is not NOT_GIVEN else NOT_GIVEN,
            scope=scope,
            first_party=first_party,
        )
        return await self._client._request("POST", "/v1/oauth_clients", RegisteredOAuthClient, json=payload)

    async def get(self, client_id: str) -> OAuthClient:
        return await self._client._request("GET", f"/v1/oauth_clients/{_id(client_id)}", OAuthClient)

    async def delete(self, client_id: str) -> None:
        return await self._client._request("DELETE", f"/v1/oauth_clients/{_id(client_id)}", None)

    async def rotate_secret(self, client_id: str) -> RegisteredOAuthClient:
        return await self._client._request("POST", f"/v1/oauth_clients/{_id(client_id)}/rotate_secret", RegisteredOAuthClient)


class AsyncEvents(_Resource):
    async def list(self, *, type: str | None = None, project_id: str | None = None, page: int | None = None, per_page: int | None = None) -> AsyncPage[Event]:
        return await self._client._get_page("/v1/events", Event, query(type=type, project_id=project_id, page=page, per_page=per_page))

    def list_all(self, *, type: str | None = None, project_id: str | None = None, per_page: int | None = None) -> AsyncIterator[Event]:
        return self._client._iterate("/v1/events", Event, query(type=type, project_id=project_id, per_page=per_page))


class AsyncWebhooks(_Resource):
    """The account's webhook endpoints (``admin`` scope, never an API key). Check what they receive with
    :func:`slipway.webhooks.construct_event` and the secret :meth:`create` returned."""

    async def list(self, *, page: int | None = None, per_page: int | None = None) -> AsyncPage[Webhook]:
        return await self._client._get_page("/v1/webhooks", Webhook, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> AsyncIterator[Webhook]:
        return self._client._iterate("/v1/webhooks", Webhook, query(per_page=per_page))

    async def create(self, *, url: str, events: Sequence[str], description: str | None = NOT_GIVEN, status: WebhookStatus = NOT_GIVEN) -> WebhookWithSecret:
        """Registers an endpoint; the returned ``secret`` (``whsec_...``) signs its deliveries and is shown this once."""
        payload = body(url=url, events=list(events), description=description, status=status)
        return await self._client._request("POST", "/v1/webhooks", WebhookWithSecret, json=payload)

    async def get(self, webhook_id: str) -> Webhook:
        return await self._client._request("GET", f"/v1/webhooks/{_id(webhook_id)}", Webhook)

    async def update(self, webhook_id: str, *, url: str = NOT_GIVEN, events: Sequence[str] = NOT_GIVEN, description: str | None = NOT_GIVEN, status: WebhookStatus = NOT_GIVEN) -> Webhook:
        payload = body(url=url, events=list(events) if events is not NOT_GIVEN else NOT_GIVEN, description=description, status=status)
        return await self._client._request("PATCH", f"/v1/webhooks/{_id(webhook_id)}", Webhook, json=payload)

    async def delete(self, webhook_id: str) -> None:
        """Removes the endpoint with its delivery log; pending deliveries are dropped."""
        return await self._client._request("DELETE", f"/v1/webhooks/{_id(webhook_id)}", None)

    async def rotate_secret(self, webhook_id: str) -> WebhookWithSecret:
        """Issues a new ``secret`` (shown this once); the previous one keeps signing beside it for 24 hours."""
        return await self._client._request("POST", f"/v1/webhooks/{_id(webhook_id)}/rotate_secret", WebhookWithSecret)

    async def ping(self, webhook_id: str) -> WebhookDelivery:
        """Queues a ``webhook.ping`` event to the endpoint; returns the queued delivery."""
        return await self._client._request("POST", f"/v1/webhooks/{_id(webhook_id)}/ping", WebhookDelivery)

    async def list_deliveries(self, webhook_id: str, *, page: int | None = None, per_page: int | None = None) -> AsyncPage[WebhookDelivery]:
        """One page of the endpoint's delivery log, newest first."""
        return await self._client._get_page(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(page=page, per_page=per_page))

    def list_all_deliveries(self, webhook_id: str, *, per_page: int | None = None) -> AsyncIterator[WebhookDelivery]:
        return self._client._iterate(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(per_page=per_page))

    async def redeliver(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        """Sends a delivery again: the same ``Slipway-Delivery`` id and body, a new signature."""
        path = f"/v1/webhooks/{_id(webhook_id)}/deliveries/{_id(delivery_id)}/redeliver"
        return await self._client._request("POST", path, WebhookDelivery)
