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
from .._follow import LogFollowing
from .models import (
    ApiKey,
    AppendLogResult,
    Configuration,
    CreatedUser,
    Deployment,
    DeploymentConfiguration,
    Environment,
    Event,
    IssuedApiKey,
    LogPage,
    Membership,
    OAuthClient,
    Project,
    RegisteredOAuthClient,
    Review,
    TrustPolicy,
    User,
    Webhook,
    WebhookDelivery,
    WebhookWithSecret,
)

if TYPE_CHECKING:
    from .client import Page, Slipway

__all__ = ['Projects', 'Deployments', 'DeploymentLogs', 'Environments', 'Configurations', 'ApiKeys', 'Users', 'Accounts', 'OAuthClients', 'Events', 'Webhooks', 'TrustPolicies', 'Resources']


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

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, environment: str | None = None, status: Literal['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected'] | None = None, branch: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Deployment]:
        """List deployments of a project.

        Newest first; filter by `environment`, `status`, `branch`. With `Accept: text/event-stream`: Server-Sent Events of the project's deployments as they change (filters do not apply): `event: deployment` with `id: <updated_at in ms>` and the deployment as `data`, from now on, or after `Last-Event-ID` when sent. A comment line (`: keep-alive`) every 15 s of silence; the same limit of 20 streams per credential as the log streams, and the stream closes once the credential is revoked or expires.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/deployments", Deployment, query(page=page, per_page=per_page, environment=environment, status=status, branch=branch), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, environment: str | None = None, status: Literal['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected'] | None = None, branch: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Deployment]:
        """List deployments of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/deployments", Deployment, query(per_page=per_page, environment=environment, status=status, branch=branch), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, environment: str, branch: str, commit_sha: str | None = NOT_GIVEN, override_freeze: bool = NOT_GIVEN, reason: str = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Create a deployment.

        Queues a deployment of `branch` (optionally a `commit_sha`) to `environment`. Paused and archived projects refuse new deployments. The environment is made, without rules, if the project has none of that name; its rules apply: branch patterns (`branch_not_allowed`), a lock (`environment_locked`), freeze windows (`environment_frozen`, unless `override_freeze` with a `reason` and the admin scope), and with approvals or a wait timer the deployment starts `waiting`.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/deployments", Deployment, json=body(environment=environment, branch=branch, commit_sha=commit_sha, override_freeze=override_freeze, reason=reason), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, deployment_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Get a deployment."""
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, project_id: str, deployment_id: str, *, status: Literal['waiting', 'queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded', 'rejected'], status_message: str | None = NOT_GIVEN, url: str | None = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Report deployment progress.

        How an external deployer reports progress: `queued` → `building` → `deploying` → `succeeded`, or `failed`/`canceled` from any unfinished state. Other moves are `invalid_transition`. Repeating the current status only updates `status_message`/`url`.
        """
        return self._client._request('PATCH', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}", Deployment, json=body(status=status, status_message=status_message, url=url), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def redeploy(self, project_id: str, deployment_id: str, *, environment: str = NOT_GIVEN, override_freeze: bool = NOT_GIVEN, reason: str = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Redeploy or promote a deployment.

        A new deployment of the same branch and commit: to its own environment (kind `redeploy`) or to `environment` (kind `promote`), through the target environment’s rules like any deployment.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/redeploy", Deployment, json=body(environment=environment, override_freeze=override_freeze, reason=reason), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def review(self, project_id: str, deployment_id: str, *, decision: Literal['approve', 'reject'], comment: str | None = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Review:
        """Approve or reject a waiting deployment.

        By a reviewer of the environment (its `reviewers`; without any, an admin or owner), once each (`conflict` the second time). Under `prevent_self_review` the creator cannot approve. One reject ends the deployment as `rejected`; when the approvals are met and the wait timer has run out, the service queues it by itself within 5 seconds.

        Only for user credentials.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/reviews", Review, json=body(decision=decision, comment=comment), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_reviews(self, project_id: str, deployment_id: str, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Review]:
        """List the reviews of a deployment.

        Oldest first.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/reviews", Review, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all_reviews(self, project_id: str, deployment_id: str, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Review]:
        """List the reviews of a deployment.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/reviews", Review, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get_configuration(self, project_id: str, deployment_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> DeploymentConfiguration:
        """The configuration a deployment runs with.

        Every variable of the deployment’s environment, secret values in clear: to the credential that created the deployment or an admin (else `forbidden`), and only while it is `queued`, `building` or `deploying` (else `deployment_not_active`). Each answer is recorded as a `configuration.released` event (keys only, never values).
        """
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/configuration", DeploymentConfiguration, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class DeploymentLogs(LogFollowing):
    """Deployment logs: ``client.deployment_logs``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def append(self, project_id: str, deployment_id: str, *, lines: Sequence[Mapping[str, Any]], idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> AppendLogResult:
        """Append lines to a deployment's log.

        A deployer sends its output: 1–1,000 lines, at most 1 MiB a request and 8 KiB a line. The lines get the next numbers of the deployment's log, one contiguous range per request, whatever the number of writers. Any value of a secret configuration of the project (8 characters or longer) in a line is stored as `***`. Taken until 10 minutes after the deployment finished (then 409 `deployment_finished`); a log that reached LOG_MAX_LINES or LOG_MAX_BYTES answers 409 `log_full` and ends with one `system` line saying it was cut.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/logs", AppendLogResult, json=body(lines=lines), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def read(self, project_id: str, deployment_id: str, *, after: int | None = None, limit: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> LogPage:
        """Read or follow a deployment's log.

        A page of lines after `after`, in order; `complete` once the deployment has finished and the page reaches the last line stored. With `Accept: text/event-stream`: Server-Sent Events, starting after `Last-Event-ID` (a reconnecting EventSource sends it) or else after `after`. `event: line` with `id: <seq>` and `data: {seq, stream, text, timestamp}`, one per line, in order, none skipped; `event: status` with the deployment as `data` when its status changes; `event: end` with `data: {status, last_seq}` once the deployment has finished and every line stored by then was sent (within 10 s of the finish); the stream then closes (later lines: read or follow again). A comment line (`: keep-alive`) every 15 s of silence. A line written on any instance arrives within 1 s. A credential holds at most 20 streams at once (429 `rate_limited` beyond); a stream closes once its credential is revoked or expires, and when its reader is too slow to take what is sent (reconnect with `Last-Event-ID`).
        """
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/deployments/{_id(deployment_id)}/logs", LogPage, params=query(after=after, limit=limit), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Environments:
    """Environments: ``client.environments``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Environment]:
        """List environments of a project.

        Ordered by name. Environments that deployments went to before environments existed appear too, without rules.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/environments", Environment, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Environment]:
        """List environments of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/environments", Environment, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, name: str, url: str | None = NOT_GIVEN, protection: Mapping[str, Any] = NOT_GIVEN, serial: bool = NOT_GIVEN, cancel_superseded: bool = NOT_GIVEN, freeze_windows: Sequence[Mapping[str, Any]] = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Environment:
        """Create an environment.

        With its rules: protection (approvals, reviewers, wait timer, branch patterns), `serial`, `cancel_superseded`, freeze windows. A name the project already has → `conflict`.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/environments", Environment, json=body(name=name, url=url, protection=protection, serial=serial, cancel_superseded=cancel_superseded, freeze_windows=freeze_windows), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, name: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Environment:
        """Get an environment."""
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}", Environment, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def update(self, project_id: str, name: str, *, url: str | None = NOT_GIVEN, protection: Mapping[str, Any] = NOT_GIVEN, serial: bool = NOT_GIVEN, cancel_superseded: bool = NOT_GIVEN, freeze_windows: Sequence[Mapping[str, Any]] = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Environment:
        """Change an environment’s rules.

        Fields sent replace the stored ones; within `protection`, only the fields sent change. Deployments already waiting keep the approvals and wait timer they were created under.

        Only for user and client credentials.
        """
        return self._client._request('PATCH', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}", Environment, json=body(url=url, protection=protection, serial=serial, cancel_superseded=cancel_superseded, freeze_windows=freeze_windows), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, project_id: str, name: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete an environment.

        Its rules go; its deployments stay. A new deployment to the name makes it again, without rules.

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def lock(self, project_id: str, name: str, *, reason: str, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Environment:
        """Lock an environment.

        A locked environment refuses new deployments (`environment_locked`) until it is unlocked. Locking again replaces the reason.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}/lock", Environment, json=body(reason=reason), options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def unlock(self, project_id: str, name: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Environment:
        """Unlock an environment."""
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}/lock", Environment, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def rollback(self, project_id: str, name: str, *, deployment_id: str = NOT_GIVEN, override_freeze: bool = NOT_GIVEN, reason: str = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Deployment:
        """Roll an environment back.

        Redeploys the deployment that succeeded before the current one (or `deployment_id`, which must have succeeded in this environment) as a new deployment of kind `rollback`, through the environment’s rules like any deployment.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/environments/{_id(name)}/rollback", Deployment, json=body(deployment_id=deployment_id, override_freeze=override_freeze, reason=reason), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


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

    def list(self, *, page: int | None = None, per_page: int | None = None, type: Literal['project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged'] | None = None, project_id: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[Event]:
        """List events (the audit log).

        Every change in the account, newest first: projects, deployments, configurations, API keys, users, OAuth clients. Filter by `type` and `project_id`.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page('/v1/events', Event, query(page=page, per_page=per_page, type=type, project_id=project_id), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, *, per_page: int | None = None, type: Literal['project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged'] | None = None, project_id: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[Event]:
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

    def create(self, *, url: str, events: Sequence[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']], description: str | None = NOT_GIVEN, status: Literal['enabled', 'disabled'] = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> WebhookWithSecret:
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

    def update(self, webhook_id: str, *, url: str = NOT_GIVEN, events: Sequence[Literal['*', 'project.created', 'project.updated', 'project.deleted', 'deployment.created', 'deployment.status_changed', 'deployment.waiting', 'deployment.reviewed', 'deployment.approved', 'deployment.rejected', 'environment.created', 'environment.updated', 'environment.deleted', 'environment.locked', 'environment.unlocked', 'configuration.released', 'configuration.created', 'configuration.updated', 'configuration.deleted', 'api_key.created', 'api_key.rotated', 'api_key.revoked', 'user.created', 'user.updated', 'user.deleted', 'user.password_changed', 'user.password_set', 'user.invitation_accepted', 'user.invitation_declined', 'oauth_client.created', 'oauth_client.secret_rotated', 'oauth_client.deleted', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated', 'webhook.disabled', 'trust_policy.created', 'trust_policy.deleted', 'token.exchanged']] = NOT_GIVEN, description: str | None = NOT_GIVEN, status: Literal['enabled', 'disabled'] = NOT_GIVEN, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Webhook:
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


class TrustPolicies:
    """Trust policies: ``client.trust_policies``."""

    def __init__(self, client: Slipway) -> None:
        self._client = client

    def list(self, project_id: str, *, page: int | None = None, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Page[TrustPolicy]:
        """List trust policies of a project.

        Oldest first.

        Only for user and client credentials.

        One page: ``data``, ``pagination``, ``next_page()``.
        """
        return self._client._get_page(f"/v1/projects/{_id(project_id)}/trust_policies", TrustPolicy, query(page=page, per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def list_all(self, project_id: str, *, per_page: int | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> Iterator[TrustPolicy]:
        """List trust policies of a project.

        Every item, fetching pages (of ``per_page``) as the iteration reaches them.
        """
        return self._client._iterate(f"/v1/projects/{_id(project_id)}/trust_policies", TrustPolicy, query(per_page=per_page), RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def create(self, project_id: str, *, name: str, issuer: str, audience: str = NOT_GIVEN, claims: Mapping[str, Any], scopes: Sequence[Literal['read', 'write']], environments: Sequence[str] | None = NOT_GIVEN, max_ttl_seconds: int = NOT_GIVEN, idempotency_key: str | None = None, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> TrustPolicy:
        """Create a trust policy.

        Lets CI tokens of `issuer` whose `aud` holds `audience` and whose claims equal every value of `claims` be exchanged (RFC 8693, at the token endpoint, with no secret) for a token acting as this project with `scopes`, deploying only to `environments`. Archived projects refuse it.

        Only for user and client credentials.
        """
        return self._client._request('POST', f"/v1/projects/{_id(project_id)}/trust_policies", TrustPolicy, json=body(name=name, issuer=issuer, audience=audience, claims=claims, scopes=scopes, environments=environments, max_ttl_seconds=max_ttl_seconds), options=RequestOptions(idempotency_key=idempotency_key, idempotent=True, timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def get(self, project_id: str, trust_policy_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> TrustPolicy:
        """Get a trust policy.

        Only for user and client credentials.
        """
        return self._client._request('GET', f"/v1/projects/{_id(project_id)}/trust_policies/{_id(trust_policy_id)}", TrustPolicy, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))

    def delete(self, project_id: str, trust_policy_id: str, *, timeout: Timeout | None = None, extra_headers: Mapping[str, str] | None = None, max_retries: int | None = None) -> None:
        """Delete a trust policy.

        Tokens exchanged through it stop working (at once on this instance, within the revocation refresh on the others).

        Only for user and client credentials.
        """
        return self._client._request('DELETE', f"/v1/projects/{_id(project_id)}/trust_policies/{_id(trust_policy_id)}", None, options=RequestOptions(timeout=timeout, extra_headers=extra_headers, max_retries=max_retries))


class Resources:
    """The resource namespaces of :class:`~slipway.Slipway`."""

    projects: Projects
    deployments: Deployments
    deployment_logs: DeploymentLogs
    environments: Environments
    configurations: Configurations
    api_keys: ApiKeys
    users: Users
    accounts: Accounts
    oauth_clients: OAuthClients
    events: Events
    webhooks: Webhooks
    trust_policies: TrustPolicies

    def _bind_resources(self) -> None:
        client = cast("Slipway", self)
        self.projects = Projects(client)
        self.deployments = Deployments(client)
        self.deployment_logs = DeploymentLogs(client)
        self.environments = Environments(client)
        self.configurations = Configurations(client)
        self.api_keys = ApiKeys(client)
        self.users = Users(client)
        self.accounts = Accounts(client)
        self.oauth_clients = OAuthClients(client)
        self.events = Events(client)
        self.webhooks = Webhooks(client)
        self.trust_policies = TrustPolicies(client)
