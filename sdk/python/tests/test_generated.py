"""No drift: everything in src/slipway/_generated/ (models, the sync and async resources, the API
version and error codes) is exactly what scripts/generate.py makes from the running server's
/openapi.json; and the tree it makes is the one the three SDKs agreed on."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import httpx

import slipway
from slipway import AsyncSlipway, ErrorCode, Slipway

from .harness import Harness

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "src" / "slipway" / "_generated"


def test_generated_files_match_the_servers_openapi_document(harness: Harness, tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate.py"), harness.base_url, str(tmp_path)], check=True, timeout=120)
    made = sorted(p.name for p in tmp_path.iterdir())
    checked_in = sorted(p.name for p in GENERATED.iterdir() if p.suffix == ".py")
    assert made == checked_in == ["__init__.py", "async_resources.py", "meta.py", "models.py", "resources.py"]
    for name in made:
        assert (tmp_path / name).read_bytes() == (GENERATED / name).read_bytes(), f"src/slipway/_generated/{name} is stale: run scripts/generate.sh BASE_URL"
        assert (GENERATED / name).read_text().startswith("# File generated from our OpenAPI document")


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
    "deployments": ["list", "list_all", "create", "get", "update"],
    "configurations": ["list", "list_all", "create", "get", "update", "delete"],
    "api_keys": ["list", "list_all", "create", "get", "revoke", "rotate"],
    "users": ["list", "list_all", "create", "me", "change_password", "get", "update", "delete"],
    "oauth_clients": ["list", "list_all", "create", "get", "delete", "rotate_secret"],
    "events": ["list", "list_all"],
    "webhooks": ["list", "list_all", "create", "get", "update", "delete", "rotate_secret", "ping", "list_deliveries", "list_all_deliveries", "redeliver"],
}


# The operations besides the creates whose document declares an Idempotency-Key header.
IDEMPOTENT = {("api_keys", "rotate"), ("oauth_clients", "rotate_secret"), ("webhooks", "rotate_secret")}


def test_the_resource_tree_is_the_agreed_one() -> None:
    for cls in (Slipway, AsyncSlipway):
        client = cls(base_url="http://127.0.0.1:1", api_key="slw_x")
        for namespace, methods in TREE.items():
            resource = getattr(client, namespace)
            public = [name for name, _ in inspect.getmembers(type(resource), inspect.isfunction) if not name.startswith("_")]
            assert sorted(public) == sorted(methods), (cls.__name__, namespace)
            for method in methods:
                parameters = inspect.signature(getattr(resource, method)).parameters
                # The same per-call options everywhere; an Idempotency-Key where the operation takes one.
                assert {"timeout", "extra_headers", "max_retries"} <= set(parameters), (namespace, method)
                takes_key = method == "create" or (namespace, method) in IDEMPOTENT
                assert ("idempotency_key" in parameters) == takes_key, (namespace, method)
        # Children take their parent's id first.
        assert list(inspect.signature(client.deployments.get).parameters)[:2] == ["project_id", "deployment_id"]
        assert list(inspect.signature(client.webhooks.redeliver).parameters)[:2] == ["webhook_id", "delivery_id"]
