"""The API's resources for the synchronous client: ``client.projects``, ``client.deployments``, ...

Each method is one /v1 operation; ``list`` returns one page, ``list_all`` a generator over every page.
Keyword arguments left out are not sent (``None`` is sent as JSON ``null`` where the API accepts it).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator, Literal, Sequence
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
    from ._client import Page, Slipway

Scope = Literal["read", "write", "admin"]
Role = Literal["viewer", "developer", "admin", "owner"]
WebhookStatus = Literal["enabled", "disabled"]


def _id(value: str) -> str:
    return quote(value, safe="")


def _iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


class _Resource:
    def __init__(self, client: Slipway) -> None:
        self._client = client


class Projects(_Resource):
    def list(self, *, page: int | None = None, per_page: int | None = None) -> Page[Project]:
        return self._client._get_page("/v1/projects", Project, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> Iterator[Project]:
        return self._client._iterate("/v1/projects", Project, query(per_page=per_page))

    def create(self, *, name: str, deploy_target: str | None = NOT_GIVEN) -> Project:
        return self._client._request("POST", "/v1/projects", Project, json=body(name=name, deploy_target=deploy_target))

    def get(self, project_id: str) -> Project:
        return self._client._request("GET", f"/v1/projects/{_id(project_id)}", Project)

    def update(self, project_id: str, *, name: str = NOT_GIVEN, deploy_target: str | None = NOT_GIVEN, status: str = NOT_GIVEN) -> Project:
        return self._client._request("PATCH", f"/v1/projects/{_id(project_id)}", Project, json=body(name=name, deploy_target=deploy_target, status=status))

    def delete(self, project_id: str) -> None:
        return self._client._request("DELETE", f"/v1/projects/{_id(project_id)}", None)


class Deployments(_Resource):
    def list(self, project_id: str, *, environment: str | None = None, status: str | None = None, branch: str | None = None, page: int | None = None, per_page: int | None = None) -> Page[Deployment]:
        params = query(environment=environment, status=status, branch=branch, page=page, per_page=per_page)
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/deployments", Deployment, params)

    def list_all(self, project_id: str, *, environment: str | None = None, status: str | None = None, branch: str | None = None, per_page: int | None = None) -> Iterator[Deployment]:
        params = query(environment=environment, status=status, branch=branch, per_page=per_page)
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/deployments", Deployment, params)

    def create(self, project_id: str, *, environment: str, branch: str, commit_sha: str | None = NOT_GIVEN) -> Deployment:
        return self._client._request("POST", f"/v1/projects/{_id(project_id)}/deployments", Deployment, json=body(environment=environment, branch=branch, commit_sha=commit_sha))

    def get(self, project_id: str, deployment_id: str) -> Deployment:
        return self._client._request("GET", f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment)

    def update(self, project_id: str, deployment_id: str, *, status: str, status_message: str | None = NOT_GIVEN, url: str | None = NOT_GIVEN) -> Deployment:
        payload = body(status=status, status_message=status_message, url=url)
        return self._client._request("PATCH", f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, json=payload)


class Configurations(_Resource):
    def list(self, project_id: str, *, environment: str | None = None, reveal: bool | None = None, page: int | None = None, per_page: int | None = None) -> Page[Configuration]:
        params = query(environment=environment, reveal=reveal, page=page, per_page=per_page)
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/configurations", Configuration, params)

    def list_all(self, project_id: str, *, environment: str | None = None, reveal: bool | None = None, per_page: int | None = None) -> Iterator[Configuration]:
        params = query(environment=environment, reveal=reveal, per_page=per_page)
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/configurations", Configuration, params)

    def create(self, project_id: str, *, environment: str, key: str, value: str, secret: bool = NOT_GIVEN) -> Configuration:
        payload = body(environment=environment, key=key, value=value, secret=secret)
        return self._client._request("POST", f"/v1/projects/{_id(project_id)}/configurations", Configuration, json=payload)

    def get(self, project_id: str, configuration_id: str, *, reveal: bool | None = None) -> Configuration:
        path = f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}"
        return self._client._request("GET", path, Configuration, params=query(reveal=reveal))

    def update(self, project_id: str, configuration_id: str, *, value: str = NOT_GIVEN, secret: bool = NOT_GIVEN) -> Configuration:
        path = f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}"
        return self._client._request("PATCH", path, Configuration, json=body(value=value, secret=secret))

    def delete(self, project_id: str, configuration_id: str) -> None:
        return self._client._request("DELETE", f"/v1/projects/{_id(project_id)}/configurations/{_id(configuration_id)}", None)


class ApiKeys(_Resource):
    def list(self, project_id: str, *, status: str | None = None, page: int | None = None, per_page: int | None = None) -> Page[ApiKey]:
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(status=status, page=page, per_page=per_page))

    def list_all(self, project_id: str, *, status: str | None = None, per_page: int | None = None) -> Iterator[ApiKey]:
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/api_keys", ApiKey, query(status=status, per_page=per_page))

    def create(self, project_id: str, *, name: str, scopes: Sequence[Scope], expires_at: datetime | str | None = NOT_GIVEN) -> IssuedApiKey:
        """Creates a key; the returned ``key`` is its secret, shown this once."""
        payload = body(name=name, scopes=list(scopes), expires_at=expires_at if expires_at is NOT_GIVEN else _iso(expires_at))
        return self._client._request("POST", f"/v1/projects/{_id(project_id)}/api_keys", IssuedApiKey, json=payload)

    def get(self, project_id: str, api_key_id: str) -> ApiKey:
        return self._client._request("GET", f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey)

    def revoke(self, project_id: str, api_key_id: str) -> ApiKey:
        return self._client._request("DELETE", f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}", ApiKey)

    def rotate(self, project_id: str, api_key_id: str, *, grace_period_seconds: int = NOT_GIVEN) -> IssuedApiKey:
        """Issues a new secret for the key (same id); the old one works ``grace_period_seconds`` more."""
        path = f"/v1/projects/{_id(project_id)}/api_keys/{_id(api_key_id)}/rotate"
        return self._client._request("POST", path, IssuedApiKey, json=body(grace_period_seconds=grace_period_seconds))


class Users(_Resource):
    def list(self, *, page: int | None = None, per_page: int | None = None) -> Page[User]:
        return self._client._get_page("/v1/users", User, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> Iterator[User]:
        return self._client._iterate("/v1/users", User, query(per_page=per_page))

    def create(self, *, email: str, name: str, role: Role, password: str = NOT_GIVEN) -> CreatedUser:
        return self._client._request("POST", "/v1/users", CreatedUser, json=body(email=email, name=name, role=role, password=password))

    def me(self) -> User:
        return self._client._request("GET", "/v1/users/me", User)

    def change_password(self, *, current_password: str, new_password: str) -> None:
        return self._client._request("POST", "/v1/users/me/password", None, json=body(current_password=current_password, new_password=new_password))

    def get(self, user_id: str) -> User:
        return self._client._request("GET", f"/v1/users/{_id(user_id)}", User)

    def update(self, user_id: str, *, name: str = NOT_GIVEN, role: Role = NOT_GIVEN) -> User:
        return self._client._request("PATCH", f"/v1/users/{_id(user_id)}", User, json=body(name=name, role=role))

    def delete(self, user_id: str) -> None:
        return self._client._request("DELETE", f"/v1/users/{_id(user_id)}", None)


class OAuthClients(_Resource):
    def list(self, *, page: int | None = None, per_page: int | None = None) -> Page[OAuthClient]:
        return self._client._get_page("/v1/oauth_clients", OAuthClient, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> Iterator[OAuthClient]:
        return self._client._iterate("/v1/oauth_clients", OAuthClient, query(per_page=per_page))

    def create(
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
        return self._client._request("POST", "/v1/oauth_clients", RegisteredOAuthClient, json=payload)

    def get(self, client_id: str) -> OAuthClient:
        return self._client._request("GET", f"/v1/oauth_clients/{_id(client_id)}", OAuthClient)

    def delete(self, client_id: str) -> None:
        return self._client._request("DELETE", f"/v1/oauth_clients/{_id(client_id)}", None)

    def rotate_secret(self, client_id: str) -> RegisteredOAuthClient:
        return self._client._request("POST", f"/v1/oauth_clients/{_id(client_id)}/rotate_secret", RegisteredOAuthClient)


class Events(_Resource):
    def list(self, *, type: str | None = None, project_id: str | None = None, page: int | None = None, per_page: int | None = None) -> Page[Event]:
        return self._client._get_page("/v1/events", Event, query(type=type, project_id=project_id, page=page, per_page=per_page))

    def list_all(self, *, type: str | None = None, project_id: str | None = None, per_page: int | None = None) -> Iterator[Event]:
        return self._client._iterate("/v1/events", Event, query(type=type, project_id=project_id, per_page=per_page))


class Webhooks(_Resource):
    """The account's webhook endpoints (``admin`` scope, never an API key). Check what they receive with
    :func:`slipway.webhooks.construct_event` and the secret :meth:`create` returned."""

    def list(self, *, page: int | None = None, per_page: int | None = None) -> Page[Webhook]:
        return self._client._get_page("/v1/webhooks", Webhook, query(page=page, per_page=per_page))

    def list_all(self, *, per_page: int | None = None) -> Iterator[Webhook]:
        return self._client._iterate("/v1/webhooks", Webhook, query(per_page=per_page))

    def create(self, *, url: str, events: Sequence[str], description: str | None = NOT_GIVEN, status: WebhookStatus = NOT_GIVEN) -> WebhookWithSecret:
        """Registers an endpoint; the returned ``secret`` (``whsec_...``) signs its deliveries and is shown this once."""
        payload = body(url=url, events=list(events), description=description, status=status)
        return self._client._request("POST", "/v1/webhooks", WebhookWithSecret, json=payload)

    def get(self, webhook_id: str) -> Webhook:
        return self._client._request("GET", f"/v1/webhooks/{_id(webhook_id)}", Webhook)

    def update(self, webhook_id: str, *, url: str = NOT_GIVEN, events: Sequence[str] = NOT_GIVEN, description: str | None = NOT_GIVEN, status: WebhookStatus = NOT_GIVEN) -> Webhook:
        payload = body(url=url, events=list(events) if events is not NOT_GIVEN else NOT_GIVEN, description=description, status=status)
        return self._client._request("PATCH", f"/v1/webhooks/{_id(webhook_id)}", Webhook, json=payload)

    def delete(self, webhook_id: str) -> None:
        """Removes the endpoint with its delivery log; pending deliveries are dropped."""
        return self._client._request("DELETE", f"/v1/webhooks/{_id(webhook_id)}", None)

    def rotate_secret(self, webhook_id: str) -> WebhookWithSecret:
        """Issues a new ``secret`` (shown this once); the previous one keeps signing beside it for 24 hours."""
        return self._client._request("POST", f"/v1/webhooks/{_id(webhook_id)}/rotate_secret", WebhookWithSecret)

    def ping(self, webhook_id: str) -> WebhookDelivery:
        """Queues a ``webhook.ping`` event to the endpoint; returns the queued delivery."""
        return self._client._request("POST", f"/v1/webhooks/{_id(webhook_id)}/ping", WebhookDelivery)

    def list_deliveries(self, webhook_id: str, *, page: int | None = None, per_page: int | None = None) -> Page[WebhookDelivery]:
        """One page of the endpoint's delivery log, newest first."""
        return self._client._get_page(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(page=page, per_page=per_page))

    def list_all_deliveries(self, webhook_id: str, *, per_page: int | None = None) -> Iterator[WebhookDelivery]:
        return self._client._iterate(f"/v1/webhooks/{_id(webhook_id)}/deliveries", WebhookDelivery, query(per_page=per_page))

    def redeliver(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        """Sends a delivery again: the same ``Slipway-Delivery`` id and body, a new signature."""
        path = f"/v1/webhooks/{_id(webhook_id)}/deliveries/{_id(delivery_id)}/redeliver"
        return self._client._request("POST", path, WebhookDelivery)
