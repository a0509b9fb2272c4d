"""The async client is the sync one with ``await``: the same operations with the same signatures and
docstrings (introspection), and the same requests on the wire for the same calls (pagination, raw
requests, Idempotency-Keys and their retries, errors), against the live server and a local stub."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

import slipway._generated.async_client
import slipway._generated.async_resources as async_resources
import slipway._generated.client
import slipway._generated.resources as resources
from slipway import AsyncPage, AsyncSlipway, Page, ServerError, Slipway
from slipway._base import USER_AGENT
from slipway._follow import AsyncLogFollowing, LogFollowing

from .harness import Harness
from .test_generated import TREE
from .stubs import static_server

#: The async client's names for what the sync client calls otherwise.
SYNC_NAME = {"aclose": "close", "__aenter__": "__enter__", "__aexit__": "__exit__"}

#: Called without ``await`` in both clients.
NOT_AWAITED = {"__init__", "with_options", "_bind_resources"}


def as_sync(text: str) -> str:
    """An async annotation or docstring as the sync one says it: AsyncSlipway -> Slipway,
    httpx.AsyncClient -> httpx.Client, ``await x`` -> ``x``, aclose -> close."""
    text = re.sub(r"\bAsync(?=[A-Z])", "", text)
    text = re.sub(r"\b(await|async) ", "", text)
    return re.sub(r"\baclose\b", "close", text)


def functions(cls: type) -> dict[str, Any]:
    """The functions a class defines itself (private ones too), by their sync names."""
    return {SYNC_NAME.get(name, name): fn for name, fn in vars(cls).items() if inspect.isfunction(fn)}


def shape(fn: Any) -> tuple[list[tuple[str, Any, Any, str]], str]:
    signature = inspect.signature(fn)
    parameters = [(p.name, p.kind, p.default, as_sync(str(p.annotation))) for p in signature.parameters.values()]
    return parameters, as_sync(str(signature.return_annotation))


def class_pairs() -> list[tuple[type, type]]:
    pairs: list[tuple[type, type]] = [(Slipway, AsyncSlipway), (Page, AsyncPage)]
    assert [f"Async{name}" for name in resources.__all__] == async_resources.__all__
    pairs += [(getattr(resources, name), getattr(async_resources, f"Async{name}")) for name in resources.__all__]
    # The hand-written methods the generated namespaces take from a base (deployment_logs.follow).
    pairs += [(LogFollowing, AsyncLogFollowing)]
    return pairs


def test_the_async_client_has_every_operation_of_the_sync_one_with_the_same_signature() -> None:
    compared: set[tuple[str, str]] = set()
    for sync_cls, async_cls in class_pairs():
        assert as_sync(async_cls.__name__) == sync_cls.__name__
        # The same bases (the resources' classes, BasePage), in the same order.
        assert [as_sync(c.__name__) for c in async_cls.__mro__] == [c.__name__ for c in sync_cls.__mro__]
        sync_fns, async_fns = functions(sync_cls), functions(async_cls)
        assert sorted(sync_fns) == sorted(async_fns), sync_cls.__name__
        for name, sync_fn in sync_fns.items():
            async_fn = async_fns[name]
            where = f"{sync_cls.__name__}.{name}"
            assert shape(async_fn) == shape(sync_fn), where
            assert as_sync(async_fn.__doc__ or "") == (sync_fn.__doc__ or ""), where
            assert not inspect.iscoroutinefunction(sync_fn) and not inspect.isasyncgenfunction(sync_fn), where
            returns = str(inspect.signature(async_fn).return_annotation)
            if returns.startswith("AsyncIterator["):
                # list_all*, iter_all, _iterate: iterated with ``async for``, not awaited.
                assert not inspect.iscoroutinefunction(async_fn), where
            elif name in NOT_AWAITED:
                assert not inspect.iscoroutinefunction(async_fn) and not inspect.isasyncgenfunction(async_fn), where
            else:
                assert inspect.iscoroutinefunction(async_fn), where
            compared.add((sync_cls.__name__, name))
    # Every operation of the agreed tree, and the clients' own plumbing, was compared.
    client = Slipway(base_url="http://127.0.0.1:1", api_key="slw_x")
    for namespace, methods in TREE.items():
        for m in methods:
            # Compared where it is defined: the namespace's class or a hand-written base of it.
            assert any((cls.__name__, m) in compared for cls in type(getattr(client, namespace)).__mro__), (namespace, m)
    assert {("Slipway", m) for m in ("request", "with_options", "close", "_send", "_request", "_get_page", "_iterate", "_token")} <= compared
    assert {("Page", "next_page"), ("Page", "iter_all")} <= compared


def test_the_resource_namespaces_and_public_attributes_are_the_same() -> None:
    assert {k: as_sync(str(v)) for k, v in async_resources.AsyncResources.__annotations__.items()} == {
        k: str(v) for k, v in resources.Resources.__annotations__.items()
    }
    sync_client = Slipway(base_url="http://127.0.0.1:1", api_key="slw_x")
    async_client = AsyncSlipway(base_url="http://127.0.0.1:1", api_key="slw_x")
    public = [sorted(SYNC_NAME.get(n, n) for n in dir(c) if not n.startswith("_")) for c in (sync_client, async_client)]
    assert public[0] == public[1] and "projects" in public[0] and "request" in public[0]
    for namespace in resources.Resources.__annotations__:
        assert type(getattr(async_client, namespace)).__name__ == "Async" + type(getattr(sync_client, namespace)).__name__


# -- the same calls, the same requests -------------------------------------------------------------


class Recorded:
    """What a client sent, with what differs between two runs (ids, this run's names, generated
    Idempotency-Keys) replaced by placeholders."""

    def __init__(self, run: str) -> None:
        self.run = run
        self.requests: list[tuple[Any, ...]] = []
        self.generated_keys: list[str] = []

    def add(self, request: httpx.Request) -> None:
        key = request.headers.get("idempotency-key")
        if key is not None and not key.startswith("explicit-"):
            self.generated_keys.append(key)
            key = "<generated>"
        body = json.loads(request.content) if request.content else None
        self.requests.append(
            (
                request.method,
                self.normal(request.url.path),
                sorted((k, self.normal(v)) for k, v in request.url.params.multi_items()),
                json.loads(self.normal(json.dumps(body))),
                None if key is None else self.normal(key),
                request.headers["user-agent"],
                request.headers["authorization"].split(" ")[0],
                sorted(request.headers.keys()),
            )
        )

    def normal(self, text: str) -> str:
        return re.sub(r"\b[a-z]+_[0-9a-z]{26}\b", "{id}", text.replace(self.run, "{run}"))


class SyncRecorder(httpx.HTTPTransport):
    def __init__(self, recorded: Recorded, drop_first_post: bool = False) -> None:
        super().__init__()
        self.recorded = recorded
        self.drop = drop_first_post

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.recorded.add(request)
        response = super().handle_request(request)
        if self.drop and request.method == "POST":
            # The POST ran on the server; its answer is lost on the way back.
            self.drop = False
            response.read()
            response.close()
            raise httpx.ReadError("connection reset by peer", request=request)
        return response


class AsyncRecorder(httpx.AsyncHTTPTransport):
    def __init__(self, recorded: Recorded, drop_first_post: bool = False) -> None:
        super().__init__()
        self.recorded = recorded
        self.drop = drop_first_post

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.recorded.add(request)
        response = await super().handle_async_request(request)
        if self.drop and request.method == "POST":
            self.drop = False
            await response.aread()
            await response.aclose()
            raise httpx.ReadError("connection reset by peer", request=request)
        return response


def errors_of(outcome: BaseException) -> tuple[str, str | None, int | None, list[str]]:
    details = [d["field"] for d in getattr(outcome, "details", None) or []]
    return type(outcome).__name__, getattr(outcome, "code", None), getattr(outcome, "status", None), details


def sync_scenario(client: Slipway, project_id: str, run: str) -> list[Any]:
    """Creates, pages, iterates, reads, updates, a raw request, an explicit key used twice, two errors."""
    branch = f"parity-{run}"
    out: list[Any] = []
    made = [client.deployments.create(project_id, environment="preview", branch=branch) for _ in range(3)]
    page = client.deployments.list(project_id, branch=branch, per_page=2)
    second = page.next_page()
    assert second is not None
    out += [len(page), page.pagination.total, len(second), second.next_page()]
    listed = [d.id for d in client.deployments.list_all(project_id, branch=branch, per_page=2)]
    out.append(sorted(listed) == sorted(d.id for d in made))
    out.append(client.deployments.get(project_id, made[0].id).branch == branch)
    out.append(client.deployments.update(project_id, made[0].id, status="building").status)
    raw = client.request("GET", f"/v1/projects/{project_id}/deployments", params={"branch": branch, "per_page": 1})
    out.append((len(raw["data"]), raw["pagination"]["total"]))
    twice = [client.deployments.create(project_id, environment="staging", branch=branch, idempotency_key=f"explicit-{run}").id for _ in range(2)]
    out.append(twice[0] == twice[1])
    calls: list[Callable[[], Any]] = [
        lambda: client.deployments.get(project_id, "dep_" + "0" * 26),
        lambda: client.deployments.create(project_id, environment="preview", branch="bad..branch"),
    ]
    for call in calls:
        with pytest.raises(Exception) as caught:
            call()
        out.append(errors_of(caught.value))
    return out


async def async_scenario(client: AsyncSlipway, project_id: str, run: str) -> list[Any]:
    """sync_scenario, line for line, with await."""
    branch = f"parity-{run}"
    out: list[Any] = []
    made = [await client.deployments.create(project_id, environment="preview", branch=branch) for _ in range(3)]
    page = await client.deployments.list(project_id, branch=branch, per_page=2)
    second = await page.next_page()
    assert second is not None
    out += [len(page), page.pagination.total, len(second), await second.next_page()]
    listed = [d.id async for d in client.deployments.list_all(project_id, branch=branch, per_page=2)]
    out.append(sorted(listed) == sorted(d.id for d in made))
    out.append((await client.deployments.get(project_id, made[0].id)).branch == branch)
    out.append((await client.deployments.update(project_id, made[0].id, status="building")).status)
    raw = await client.request("GET", f"/v1/projects/{project_id}/deployments", params={"branch": branch, "per_page": 1})
    out.append((len(raw["data"]), raw["pagination"]["total"]))
    twice = [(await client.deployments.create(project_id, environment="staging", branch=branch, idempotency_key=f"explicit-{run}")).id for _ in range(2)]
    out.append(twice[0] == twice[1])
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: client.deployments.get(project_id, "dep_" + "0" * 26),
        lambda: client.deployments.create(project_id, environment="preview", branch="bad..branch"),
    ]
    for call in calls:
        with pytest.raises(Exception) as caught:
            await call()
        out.append(errors_of(caught.value))
    return out


async def test_the_same_calls_send_the_same_requests_and_give_the_same_results(harness: Harness, unique: str) -> None:
    project_id = harness.info["api_key"]["project_id"]
    key = harness.info["api_key"]["key"]
    sync_sent, async_sent = Recorded(f"s{unique}"), Recorded(f"a{unique}")
    with Slipway(base_url=harness.base_url, api_key=key, http_client=httpx.Client(transport=SyncRecorder(sync_sent))) as sync_client:
        sync_results = sync_scenario(sync_client, project_id, sync_sent.run)
    async with AsyncSlipway(base_url=harness.base_url, api_key=key, http_client=httpx.AsyncClient(transport=AsyncRecorder(async_sent))) as async_client:
        async_results = await async_scenario(async_client, project_id, async_sent.run)
    assert sync_results == async_results
    assert sync_results == [2, 3, 1, None, True, True, "building", (1, 3), True, ("NotFoundError", "not_found", 404, []), ("UnprocessableEntityError", "validation_failed", 422, ["branch"])]
    assert len(sync_sent.requests) == len(async_sent.requests) == 14
    for number, (sent_sync, sent_async) in enumerate(zip(sync_sent.requests, async_sent.requests)):
        assert sent_sync == sent_async, number
    assert sync_sent.requests[0][5] == USER_AGENT
    # One fresh key per create that was not given one (the three creates and the refused one).
    for sent in (sync_sent, async_sent):
        assert len(sent.generated_keys) == len(set(sent.generated_keys)) == 4


async def test_a_create_whose_answer_is_lost_is_resent_with_its_key_and_creates_once(harness: Harness, unique: str, monkeypatch: pytest.MonkeyPatch) -> None:
    waits: dict[str, list[float]] = {"sync": [], "async": []}

    async def record(delay: float) -> None:
        waits["async"].append(delay)

    monkeypatch.setattr(slipway._generated.client, "_sleep", waits["sync"].append)
    monkeypatch.setattr(slipway._generated.async_client, "_sleep", record)
    project_id = harness.info["api_key"]["project_id"]
    key = harness.info["api_key"]["key"]
    sync_sent, async_sent = Recorded(f"s{unique}"), Recorded(f"a{unique}")
    with Slipway(base_url=harness.base_url, api_key=key, http_client=httpx.Client(transport=SyncRecorder(sync_sent, drop_first_post=True))) as sync_client:
        made_sync = sync_client.deployments.create(project_id, environment="preview", branch=f"lost-{sync_sent.run}")
        found_sync = [d.id for d in sync_client.deployments.list_all(project_id, branch=f"lost-{sync_sent.run}")]
    transport = AsyncRecorder(async_sent, drop_first_post=True)
    async with AsyncSlipway(base_url=harness.base_url, api_key=key, http_client=httpx.AsyncClient(transport=transport)) as async_client:
        made_async = await async_client.deployments.create(project_id, environment="preview", branch=f"lost-{async_sent.run}")
        found_async = [d.id async for d in async_client.deployments.list_all(project_id, branch=f"lost-{async_sent.run}")]
    assert found_sync == [made_sync.id] and found_async == [made_async.id]
    assert sync_sent.requests == async_sent.requests and [r[0] for r in sync_sent.requests] == ["POST", "POST", "GET"]
    for sent in (sync_sent, async_sent):
        assert len(sent.generated_keys) == 2 and len(set(sent.generated_keys)) == 1
    assert len(waits["sync"]) == len(waits["async"]) == 1


UNAVAILABLE = json.dumps({"error": {"code": "service_unavailable", "message": "Down for a moment.", "status": 503, "request_id": "req_stub"}})


async def test_503s_are_retried_the_same_way_then_raise_the_same_error(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: dict[str, list[float]] = {"sync": [], "async": []}

    async def record(delay: float) -> None:
        waits["async"].append(delay)

    monkeypatch.setattr(slipway._generated.client, "_sleep", waits["sync"].append)
    monkeypatch.setattr(slipway._generated.async_client, "_sleep", record)
    outcomes: dict[str, tuple[Any, ...]] = {}
    with static_server(503, "application/json", UNAVAILABLE) as stub:
        sync_sent, async_sent = Recorded(uuid.uuid4().hex), Recorded(uuid.uuid4().hex)
        with Slipway(base_url=stub.base_url, api_key="slw_x", max_retries=3, http_client=httpx.Client(transport=SyncRecorder(sync_sent))) as sync_client:
            with pytest.raises(ServerError) as sync_error:
                sync_client.projects.create(name="p")
        async with AsyncSlipway(base_url=stub.base_url, api_key="slw_x", max_retries=3, http_client=httpx.AsyncClient(transport=AsyncRecorder(async_sent))) as async_client:
            with pytest.raises(ServerError) as async_error:
                await async_client.projects.create(name="p")
        outcomes = {"sync": errors_of(sync_error.value), "async": errors_of(async_error.value)}
        assert stub.requests == ["POST /v1/projects"] * 8
    assert outcomes["sync"] == outcomes["async"] == ("ServerError", "service_unavailable", 503, [])
    assert sync_sent.requests == async_sent.requests and len(sync_sent.requests) == 4
    for sent in (sync_sent, async_sent):
        assert len(sent.generated_keys) == 4 and len(set(sent.generated_keys)) == 1  # each attempt reuses the call's key
    assert len(waits["sync"]) == len(waits["async"]) == 3


# -- many at once ------------------------------------------------------------------------------


def test_one_key_fired_at_once_from_tasks_and_threads_creates_once(harness: Harness, unique: str) -> None:
    """Ten tasks on one AsyncSlipway, then ten tasks on one and ten threads on a Slipway at the same
    time, each time one Idempotency-Key: one deployment, every caller gets it."""
    project_id = harness.info["api_key"]["project_id"]
    key = harness.info["api_key"]["key"]

    async def tasks(client: AsyncSlipway, branch: str, idempotency_key: str, count: int) -> list[str]:
        made = await asyncio.gather(*(client.deployments.create(project_id, environment="preview", branch=branch, idempotency_key=idempotency_key) for _ in range(count)))
        return [d.id for d in made]

    async def one_client() -> list[str]:
        async with AsyncSlipway(base_url=harness.base_url, api_key=key) as client:
            return await tasks(client, f"once-{unique}", f"explicit-once-{unique}", 10)

    ids = asyncio.run(one_client())
    assert len(ids) == 10 and len(set(ids)) == 1

    branch, idempotency_key = f"twice-{unique}", f"explicit-twice-{unique}"
    barrier = threading.Barrier(11)
    from_threads: list[str] = []
    failures: list[BaseException] = []

    with Slipway(base_url=harness.base_url, api_key=key) as sync_client:

        def worker() -> None:
            barrier.wait()
            try:
                from_threads.append(sync_client.deployments.create(project_id, environment="preview", branch=branch, idempotency_key=idempotency_key).id)
            except BaseException as err:  # reported below, with the ids
                failures.append(err)

        threads = [threading.Thread(target=worker) for _ in range(10)]
        for thread in threads:
            thread.start()

        async def with_threads() -> list[str]:
            async with AsyncSlipway(base_url=harness.base_url, api_key=key) as client:
                barrier.wait()
                return await tasks(client, branch, idempotency_key, 10)

        from_tasks = asyncio.run(with_threads())
        for thread in threads:
            thread.join(timeout=60)
        assert not failures, failures
        assert len(from_threads) == len(from_tasks) == 10
        assert len(set(from_threads) | set(from_tasks)) == 1
        listed = [d.id for d in sync_client.deployments.list_all(project_id, branch=branch, per_page=100)]
        assert listed == from_tasks[:1]
        assert [d.id for d in sync_client.deployments.list_all(project_id, branch=f"once-{unique}", per_page=100)] == ids[:1]


async def test_calls_fired_at_once_each_get_their_own_key(harness: Harness, unique: str) -> None:
    """Twenty creates at once on one AsyncSlipway without a key: twenty keys, twenty deployments."""
    project_id = harness.info["api_key"]["project_id"]
    sent = Recorded(unique)
    async with AsyncSlipway(base_url=harness.base_url, api_key=harness.info["api_key"]["key"], http_client=httpx.AsyncClient(transport=AsyncRecorder(sent))) as client:
        made = await asyncio.gather(*(client.deployments.create(project_id, environment="preview", branch=f"many-{unique}") for _ in range(20)))
        listed = [d.id async for d in client.deployments.list_all(project_id, branch=f"many-{unique}", per_page=7)]
    assert len({d.id for d in made}) == 20 and sorted(listed) == sorted(d.id for d in made)
    assert len(sent.generated_keys) == len(set(sent.generated_keys)) == 20
