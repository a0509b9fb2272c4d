"""The shared scenario (sdk/scenarios/conformance.json), run with the same inputs and expectations as
the TypeScript and Go suites: every case in order, against the live server or a local stub. A case
name this suite does not know fails."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from slipway import AsyncSlipway, OAuth, Slipway, SlipwayError

from .conftest import owner_oauth
from .harness import Harness
from .stubs import silent_server, static_server

SCENARIO_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "conformance.json"
SCENARIO: dict[str, Any] = json.loads(SCENARIO_FILE.read_text())
RUN = uuid.uuid4().hex[:10]


def filled(value: Any) -> Any:
    """``{run}`` in every string replaced by this run's suffix."""
    if isinstance(value, str):
        return value.replace("{run}", RUN)
    if isinstance(value, dict):
        return {k: filled(v) for k, v in value.items()}
    if isinstance(value, list):
        return [filled(v) for v in value]
    return value


class Context:
    def __init__(self, harness: Harness, oauth: OAuth) -> None:
        self.harness = harness
        self.oauth = oauth
        self.state: dict[str, Any] = {}

    def client(self, **kwargs: Any) -> Slipway:
        """A client of its own (its own connection pool) for the owner, signed in with PKCE."""
        return Slipway(base_url=self.harness.base_url, access_token=self.oauth.access_token(), **kwargs)

    @property
    def project_id(self) -> str:
        assert "project" in self.state, "the `create` case runs first and makes the project"
        return str(self.state["project"].id)


Case = Callable[[Context, dict[str, Any], dict[str, Any]], None]
CASES: dict[str, Case] = {}


def case(name: str) -> Callable[[Case], Case]:
    def register(fn: Case) -> Case:
        CASES[name] = fn
        return fn

    return register


@case("create")
def create(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    with ctx.client() as client:
        project = client.projects.create(name=given["name"], deploy_target=given["deploy_target"])
    assert project.status == expect["status"] and project.deploy_target == expect["deploy_target"]
    assert project.id.startswith(expect["id_prefix"]) and project.name == given["name"]
    ctx.state["project"] = project


@case("nested_list")
def nested_list(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    with ctx.client() as client:
        for environment in given["environments"]:
            client.deployments.create(ctx.project_id, environment=environment, branch=given["branch"])
    pages: list[httpx.URL] = []
    listing = f"/v1/projects/{ctx.project_id}/deployments"
    hooks = {"request": [lambda request: pages.append(request.url) if request.url.path == listing else None]}
    with ctx.client(http_client=httpx.Client(event_hooks=hooks)) as client:
        lazily = client.deployments.list_all(ctx.project_id, per_page=given["per_page"])
        assert pages == []  # nothing fetched before the iteration starts
        seen = [d.environment for d in lazily]
    assert len(seen) == expect["count"] and seen == expect["order"]
    assert len(pages) == expect["pages_fetched"]
    assert [u.params.get("page") for u in pages] == [None, "2"] and all(u.params["per_page"] == str(given["per_page"]) for u in pages)


@case("idempotent_retry")
def idempotent_retry(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    sent: list[str] = []
    hooks = {"request": [lambda request: sent.append(request.headers.get("idempotency-key", ""))]}
    ids = []
    for _ in range(2):  # two clients, as a process and the same process after a restart
        with ctx.client(http_client=httpx.Client(event_hooks=hooks)) as client:
            ids.append(client.projects.create(name=given["name"], idempotency_key=given["idempotency_key"]).id)
    assert (ids[0] == ids[1]) is expect["same_id"]
    assert sent == [given["idempotency_key"]] * 2
    with ctx.client() as client:
        named = [p.id for p in client.projects.list_all(per_page=100) if p.name == given["name"]]
    assert len(named) == expect["projects_with_name"] and named == ids[:1]


@case("set_to_null")
def set_to_null(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    with ctx.client() as client:
        assert client.projects.get(ctx.project_id).deploy_target is not None
        updated = client.projects.update(ctx.project_id, deploy_target=given["deploy_target"])
        assert updated.deploy_target is expect["deploy_target"]
        assert client.projects.get(ctx.project_id).deploy_target is expect["deploy_target"]


def expect_sdk_error(err: BaseException, expect: dict[str, Any]) -> None:
    assert expect["error_type"] == "sdk" and isinstance(err, SlipwayError), repr(err)
    assert (err.code, err.status) == (expect["code"], expect["status"])


@case("aborted_call")
def aborted_call(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    options = {"timeout": given["timeout_ms"] / 1000, "max_retries": given["max_retries"]}
    with silent_server() as stub:
        with Slipway(base_url=stub.base_url, api_key="slw_x") as client, pytest.raises(Exception) as caught:
            client.projects.list(**options)
        expect_sdk_error(caught.value, expect)
        assert len(stub.connections) == 1  # no retry after the caller's deadline


@case("html_502")
def html_502(ctx: Context, given: dict[str, Any], expect: dict[str, Any]) -> None:
    with static_server(given["status"], given["content_type"], given["body"]) as stub:
        with Slipway(base_url=stub.base_url, api_key="slw_x") as client, pytest.raises(Exception) as caught:
            client.projects.get("proj_x", max_retries=given["max_retries"])
        expect_sdk_error(caught.value, expect)
        assert stub.requests == ["GET /v1/projects/proj_x"]


@pytest.fixture(scope="module")
def ctx(harness: Harness) -> Iterator[Context]:
    oauth = owner_oauth(harness)
    yield Context(harness, oauth)
    oauth.close()


@pytest.mark.parametrize("scenario_case", SCENARIO["cases"], ids=[c["name"] for c in SCENARIO["cases"]])
def test_conformance(ctx: Context, scenario_case: dict[str, Any]) -> None:
    run = CASES.get(scenario_case["name"])
    if run is None:
        pytest.fail(f"conformance.json has a case this suite does not know: {scenario_case['name']!r}")
    run(ctx, filled(scenario_case["input"]), filled(scenario_case["expect"]))


def test_every_case_is_known_and_in_the_files_order() -> None:
    assert SCENARIO["version"] == 1
    assert [c["name"] for c in SCENARIO["cases"]] == list(CASES)


@pytest.mark.parametrize("name", ["aborted_call", "html_502"])
async def test_the_async_client_fails_the_same_way(name: str) -> None:
    scenario_case = next(c for c in SCENARIO["cases"] if c["name"] == name)
    given, expect = scenario_case["input"], scenario_case["expect"]
    if name == "aborted_call":
        with silent_server() as stub:
            async with AsyncSlipway(base_url=stub.base_url, api_key="slw_x") as client:
                with pytest.raises(Exception) as caught:
                    await client.projects.list(timeout=given["timeout_ms"] / 1000, max_retries=given["max_retries"])
            assert len(stub.connections) == 1
    else:
        with static_server(given["status"], given["content_type"], given["body"]) as stub:
            async with AsyncSlipway(base_url=stub.base_url, api_key="slw_x") as client:
                with pytest.raises(Exception) as caught:
                    await client.projects.get("proj_x", max_retries=given["max_retries"])
    expect_sdk_error(caught.value, expect)
