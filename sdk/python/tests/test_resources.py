"""Create / list / paginate (through the lazy generators) / update / delete of every resource."""

from __future__ import annotations

from typing import Any

import pytest

from slipway import NotFoundError, OAuth, Slipway, UnprocessableEntityError
from slipway.models import Configuration, Deployment, Project

from .conftest import REDIRECT_URI
from .harness import Harness, accept_invitation, log_in


def test_api_key_calls_create_a_deployment(api_client: Slipway, info: dict[str, Any]) -> None:
    project_id = info["api_key"]["project_id"]
    deployment = api_client.deployments.create(project_id, environment="production", branch="main", commit_sha="9fceb02d")
    assert isinstance(deployment, Deployment)
    assert deployment.id.startswith("dep_")
    assert (deployment.project_id, deployment.environment, deployment.branch, deployment.status) == (project_id, "production", "main", "queued")
    assert deployment.created_by.type == "api_key" and deployment.created_by.id == info["api_key"]["id"]
    assert api_client.deployments.get(project_id, deployment.id) == deployment


def test_projects(admin_client: Slipway, unique: str) -> None:
    created = [admin_client.projects.create(name=f"py-{unique}-{i}", deploy_target="fly" if i == 0 else None) for i in range(5)]
    assert all(isinstance(p, Project) and p.status == "active" for p in created)
    assert created[0].deploy_target == "fly" and created[1].deploy_target is None

    first = admin_client.projects.list(per_page=2)
    assert len(first.data) == 2 and first.pagination.per_page == 2 and first.pagination.total >= 5
    assert first.has_next_page
    second = first.next_page()
    assert second is not None and second.pagination.page == 2
    assert [p.id for p in second] == [p.id for p in second.data] and len(second) == 2
    assert {p.id for p in first.data}.isdisjoint(p.id for p in second.data)

    everything = list(admin_client.projects.list_all(per_page=2))
    ids = [p.id for p in everything]
    assert len(ids) == len(set(ids)) == first.pagination.total
    assert {p.id for p in created} <= set(ids)

    updated = admin_client.projects.update(created[0].id, name=f"py-{unique}-renamed", status="paused")
    assert (updated.name, updated.status) == (f"py-{unique}-renamed", "paused")
    assert admin_client.projects.get(created[0].id).name == f"py-{unique}-renamed"

    admin_client.projects.delete(created[0].id)
    with pytest.raises(NotFoundError):
        admin_client.projects.get(created[0].id)


def test_deployments(admin_client: Slipway, unique: str) -> None:
    project = admin_client.projects.create(name=f"py-dep-{unique}")
    made = [admin_client.deployments.create(project.id, environment="staging" if i % 2 else "production", branch=f"feature/{i}") for i in range(5)]
    pages = admin_client.deployments.list(project.id, per_page=2)
    assert pages.pagination.total == 5 and len(pages.data) == 2
    assert sorted(d.id for d in admin_client.deployments.list_all(project.id, per_page=2)) == sorted(d.id for d in made)
    staging = list(admin_client.deployments.list_all(project.id, environment="staging", per_page=1))
    assert sorted(d.id for d in staging) == sorted(d.id for d in made if d.environment == "staging")

    building = admin_client.deployments.update(project.id, made[0].id, status="building")
    assert building.status == "building" and building.started_at is not None
    done = admin_client.deployments.update(project.id, made[0].id, status="failed", status_message="tests failed")
    assert (done.status, done.status_message) == ("failed", "tests failed")
    assert done.finished_at is not None


def test_configurations(admin_client: Slipway, unique: str) -> None:
    project = admin_client.projects.create(name=f"py-cfg-{unique}")
    plain = [admin_client.configurations.create(project.id, environment="production", key=f"KEY_{i}", value=f"v{i}") for i in range(4)]
    secret = admin_client.configurations.create(project.id, environment="production", key="DATABASE_URL", value="postgres://db", secret=True)
    assert isinstance(secret, Configuration) and secret.secret and secret.value is None
    assert admin_client.configurations.get(project.id, secret.id, reveal=True).value == "postgres://db"

    listed = list(admin_client.configurations.list_all(project.id, per_page=2))
    assert sorted(c.id for c in listed) == sorted(c.id for c in [*plain, secret])
    revealed = {c.key: c.value for c in admin_client.configurations.list_all(project.id, reveal=True, per_page=2)}
    assert revealed["DATABASE_URL"] == "postgres://db" and revealed["KEY_0"] == "v0"

    changed = admin_client.configurations.update(project.id, plain[0].id, value="new")
    assert changed.value == "new"
    admin_client.configurations.delete(project.id, plain[0].id)
    with pytest.raises(NotFoundError):
        admin_client.configurations.get(project.id, plain[0].id)
    assert admin_client.configurations.list(project.id).pagination.total == 4


def test_api_keys(admin_client: Slipway, info: dict[str, Any], unique: str) -> None:
    project = admin_client.projects.create(name=f"py-keys-{unique}")
    issued = [admin_client.api_keys.create(project.id, name=f"ci {i}", scopes=["read"]) for i in range(3)]
    assert all(k.key and k.key.startswith("slw_") for k in issued)
    # The new key works, and only for reading its project.
    with Slipway(base_url=admin_client.base_url, api_key=issued[0].key) as reader:
        assert reader.projects.get(project.id).id == project.id

    keys = list(admin_client.api_keys.list_all(project.id, per_page=2))
    assert sorted(k.id for k in keys) == sorted(k.id for k in issued)
    assert admin_client.api_keys.get(project.id, issued[0].id).name == "ci 0"

    rotated = admin_client.api_keys.rotate(project.id, issued[1].id, grace_period_seconds=0)
    assert rotated.id == issued[1].id and rotated.key and rotated.key != issued[1].key

    revoked = admin_client.api_keys.revoke(project.id, issued[2].id)
    assert revoked.status == "revoked"
    assert [k.id for k in admin_client.api_keys.list_all(project.id, status="revoked")] == [issued[2].id]


def test_users(admin_client: Slipway, unique: str) -> None:
    made = [admin_client.users.create(email=f"py-{unique}-{i}@example.com", name=f"User {i}", role="viewer", password="correct horse battery staple") for i in range(3)]
    # Every new member is invited (a first password given by the inviter included) and accepts through the link.
    assert all(u.status == "invited" and u.invitation_url for u in made)
    invited = admin_client.users.create(email=f"py-{unique}-invited@example.com", name="Invited", role="developer")
    assert invited.invitation_url and "/dashboard/invitation?token=" in invited.invitation_url

    first = admin_client.users.list(per_page=2)
    assert first.pagination.total >= 6 and first.has_next_page
    ids = [u.id for u in admin_client.users.list_all(per_page=2)]
    assert len(ids) == len(set(ids)) == first.pagination.total
    assert {u.id for u in made} | {invited.id} <= set(ids)

    updated = admin_client.users.update(made[0].id, name="Renamed", role="developer")
    assert (updated.name, updated.role) == ("Renamed", "developer")
    assert admin_client.users.get(made[0].id).role == "developer"

    admin_client.users.delete(made[0].id)
    with pytest.raises(NotFoundError):
        admin_client.users.get(made[0].id)


def test_accounts(admin_client: Slipway, harness: Harness) -> None:
    page = admin_client.accounts.list()
    assert [(m.account_id, m.role, m.user_id, m.current) for m in page.data] == [(harness.info["owner"]["account_id"], "owner", harness.info["owner"]["id"], True)]


def test_change_own_password(admin_client: Slipway, harness: Harness, unique: str) -> None:
    email, password = f"py-pw-{unique}@example.com", "correct horse battery staple"
    invited = admin_client.users.create(email=email, name="PW", role="developer", password=password)
    # The invitee accepts (the inviter's first password is theirs once they do), then signs in.
    assert invited.invitation_url
    accept_invitation(invited.invitation_url, password)
    oauth = OAuth(harness.issuer, harness.info["public_client"]["client_id"], redirect_uri=REDIRECT_URI)
    request = oauth.authorization_url(scope="read")
    callback = log_in(request.url, email, password, REDIRECT_URI)
    oauth.exchange_code(callback, state=request.state, code_verifier=request.code_verifier)
    with Slipway(base_url=harness.base_url, oauth=oauth) as user:
        assert user.users.change_password(current_password=password, new_password="another long passphrase") is None
        with pytest.raises(UnprocessableEntityError) as caught:
            user.users.change_password(current_password=password, new_password="a third long passphrase")
    assert [d["field"] for d in caught.value.details] == ["current_password"]


def test_oauth_clients(admin_client: Slipway, unique: str) -> None:
    made = [
        admin_client.oauth_clients.create(client_name=f"py-{unique}-{i}", redirect_uris=["https://app.example.com/callback"])
        for i in range(2)
    ]
    assert all(c.client_secret is None and c.token_endpoint_auth_method == "none" for c in made)
    confidential = admin_client.oauth_clients.create(
        client_name=f"py-{unique}-service", token_endpoint_auth_method="client_secret_basic", grant_types=["client_credentials"]
    )
    assert confidential.client_secret

    ids = [c.client_id for c in admin_client.oauth_clients.list_all(per_page=2)]
    assert {c.client_id for c in [*made, confidential]} <= set(ids)
    assert len(ids) == len(set(ids)) == admin_client.oauth_clients.list().pagination.total

    assert admin_client.oauth_clients.get(made[0].client_id).client_name == f"py-{unique}-0"
    rotated = admin_client.oauth_clients.rotate_secret(confidential.client_id)
    assert rotated.client_secret and rotated.client_secret != confidential.client_secret

    admin_client.oauth_clients.delete(made[0].client_id)
    with pytest.raises(NotFoundError):
        admin_client.oauth_clients.get(made[0].client_id)


def test_events(admin_client: Slipway, unique: str) -> None:
    project = admin_client.projects.create(name=f"py-evt-{unique}")
    for i in range(3):
        admin_client.deployments.create(project.id, environment="production", branch=f"b{i}")
    events = list(admin_client.events.list_all(project_id=project.id, per_page=2))
    types = [e.type for e in events]
    assert types.count("deployment.created") == 3 and "project.created" in types
    assert all(e.project_id == project.id for e in events)
    only = list(admin_client.events.list_all(project_id=project.id, type="deployment.created", per_page=1))
    assert len(only) == 3
    page = admin_client.events.list(project_id=project.id, per_page=2)
    assert page.pagination.total == len(events) and page.has_next_page
