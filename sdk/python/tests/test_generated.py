"""No drift: everything in src/slipway/_generated/ (models, the sync and async resources, the API
version and error codes, the sync and async clients) is exactly what scripts/generate.py makes from the
running server's /openapi.json and scripts/templates/client.py; and the tree it makes is the one the
three SDKs agreed on."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest

import slipway
from slipway import AsyncSlipway, ErrorCode, Slipway

from .harness import Harness

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "src" / "slipway" / "_generated"


def test_generated_files_match_the_servers_openapi_document(harness: Harness, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate.py"), harness.base_url, str(tmp_path)], check=True, timeout=120)
    made = sorted(p.name for p in tmp_path.iterdir())
    checked_in = sorted(p.name for p in GENERATED.iterdir() if p.suffix == ".py")
    assert made == checked_in == ["__init__.py", "async_client.py", "async_resources.py", "client.py", "meta.py", "models.py", "resources.py"]
    for name in made:
        assert (tmp_path / name).read_bytes() == (GENERATED / name).read_bytes(), f"src/slipway/_generated/{name} is stale: run scripts/generate.sh BASE_URL"
        source = "scripts/templates/client.py" if name.endswith("client.py") else "our OpenAPI document"
        assert (GENERATED / name).read_text().startswith(f"# File generated from {source}"), name
    # No hand-written client beside the generated ones.
    assert not (ROOT / "src" / "slipway" / "_client.py").exists() and not (ROOT / "src" / "slipway" / "_async_client.py").exists()


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("slipway_generate", ROOT / "scripts" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_clients_come_from_the_one_template() -> None:
    generate = generator()
    template = generate.CLIENT_TEMPLATE.read_text()
    sync_client, async_client = generate.client_modules(template)
    # The async client is the template as written; the sync one is it without async and await.
    code = template[template.index("from __future__ import annotations") :]
    assert async_client.endswith(code)
    assert sync_client.endswith(generate.unasync(code))
    assert (GENERATED / "async_client.py").read_text() == async_client
    assert (GENERATED / "client.py").read_text() == sync_client
    assert generate.ASYNC_WORDS.search(sync_client[sync_client.index("from __future__") :]) is None
    assert "async def _send" in async_client and "\n    def _send" in sync_client
    assert "await _sleep(delay)" in async_client and "\n            _sleep(delay)" in sync_client


def test_a_template_change_the_rules_do_not_cover_stops_the_generator() -> None:
    generate = generator()
    template = generate.CLIENT_TEMPLATE.read_text()
    # Something async the rules do not turn into its sync form.
    uncovered = template.replace("        self._bind_resources()\n\n    def with_options", "        self._lock = asyncio.Lock()\n        self._bind_resources()\n\n    def with_options", 1)
    assert uncovered != template
    with pytest.raises(SystemExit, match=r"would still say[\s\S]*self\._lock = asyncio\.Lock\(\)"):
        generate.client_modules(uncovered)
    # A rule that no longer matches anything (the template was reworded without it).
    reworded = template.replace("An async generator", "A lazy async generator")
    assert reworded != template
    with pytest.raises(SystemExit, match="no longer applies"):
        generate.client_modules(reworded)


def test_the_package_states_the_api_version_it_targets(harness: Harness) -> None:
    document = httpx.get(f"{harness.base_url}/openapi.json", timeout=30).json()
    print(f"slipway {slipway.__version__} targets Slipway API {slipway.API_VERSION} (server: {document['info']['version']})")
    assert slipway.API_VERSION == document["info"]["version"]
    assert f"targets the Slipway API {slipway.API_VERSION}" in (ROOT / "README.md").read_text()


def test_error_codes_are_every_server_code_and_the_clients_own(harness: Harness) -> None:
    document = httpx.get(f"{harness.base_url}/openapi.json", timeout=30).json()
    server = document["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]["enum"]
    assert [c.value for c in ErrorCode] == [*server, "timeout", "network_error", "invalid_response", "request_aborted"]
    assert ErrorCode.NOT_FOUND == "not_found" and str(ErrorCode.VALIDATION_FAILED) == "validation_failed"
    assert f"{ErrorCode.TIMEOUT}" == "timeout"


# The agreed tree: namespace -> methods (sync and async alike).
TREE = {
    "projects": ["list", "list_all", "create", "get", "update", "delete"],
    "deployments": ["list", "list_all", "create", "get", "update", "redeploy", "review", "list_reviews", "list_all_reviews", "get_configuration"],
    "deployment_logs": ["append", "follow", "read"],
    "environments": ["list", "list_all", "create", "get", "update", "delete", "lock", "unlock", "rollback"],
    "trust_policies": ["list", "list_all", "create", "get", "delete"],
    "configurations": ["list", "list_all", "create", "get", "update", "delete"],
    "api_keys": ["list", "list_all", "create", "get", "revoke", "rotate"],
    "users": ["list", "list_all", "create", "me", "change_password", "get", "update", "delete"],
    "accounts": ["list", "list_all"],
    "oauth_clients": ["list", "list_all", "create", "get", "delete", "rotate_secret"],
    "events": ["list", "list_all"],
    "webhooks": ["list", "list_all", "create", "get", "update", "delete", "rotate_secret", "ping", "list_deliveries", "list_all_deliveries", "redeliver"],
}


# The operations besides the creates whose document declares an Idempotency-Key header.
IDEMPOTENT = {("api_keys", "rotate"), ("oauth_clients", "rotate_secret"), ("webhooks", "rotate_secret"), ("deployments", "redeploy"), ("deployment_logs", "append"), ("environments", "rollback")}


def test_the_resource_tree_is_the_agreed_one() -> None:
    for cls in (Slipway, AsyncSlipway):
        client = cls(base_url="http://127.0.0.1:1", api_key="slw_x")
        for namespace, methods in TREE.items():
            resource = getattr(client, namespace)
            public = [name for name, _ in inspect.getmembers(type(resource), inspect.isfunction) if not name.startswith("_")]
            assert sorted(public) == sorted(methods), (cls.__name__, namespace)
            for method in methods:
                parameters = inspect.signature(getattr(resource, method)).parameters
                if (namespace, method) == ("deployment_logs", "follow"):
                    # Hand-written (src/slipway/_follow.py): a stream that reconnects by itself, no per-call timeout or retries.
                    assert {"after", "max_reconnects", "extra_headers"} <= set(parameters)
                    continue
                # The same per-call options everywhere; an Idempotency-Key where the operation takes one.
                assert {"timeout", "extra_headers", "max_retries"} <= set(parameters), (namespace, method)
                takes_key = method == "create" or (namespace, method) in IDEMPOTENT
                assert ("idempotency_key" in parameters) == takes_key, (namespace, method)
        # Children take their parent's id first.
        assert list(inspect.signature(client.deployments.get).parameters)[:2] == ["project_id", "deployment_id"]
        assert list(inspect.signature(client.webhooks.redeliver).parameters)[:2] == ["webhook_id", "delivery_id"]
