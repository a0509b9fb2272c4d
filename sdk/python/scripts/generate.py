"""Generates the SDK's API layer from Slipway's OpenAPI document (what the server serves at /openapi.json).

Usage: python scripts/generate.py SOURCE [OUTPUT_DIR]

SOURCE is a running server's base URL (its /openapi.json is fetched) or a path to the document.
OUTPUT_DIR defaults to src/slipway/_generated; it receives:

- ``models.py``: pydantic v2 models of every schema, by the pinned datamodel-code-generator;
- ``resources.py`` and ``async_resources.py``: one class per tag (``client.projects``, ...), one
  method per operation (path, method, parameters, body fields, result model, whether it takes an
  ``Idempotency-Key``), for the sync and the async client;
- ``meta.py``: the API version the package targets (``info.version``) and ``ErrorCode``;
- ``async_client.py`` and ``client.py``: ``AsyncSlipway``/``AsyncPage`` and ``Slipway``/``Page`` (auth,
  retries, paging, raw requests) from the one template ``scripts/templates/client.py``, written as the
  asynchronous client: the async module is the template, the sync one is the template without async
  and await (``UNASYNC``). The resources above come from the same ``method_code`` for both, so the
  two clients cannot drift apart.

Everything is derived from the document, except the few method names the SDKs agreed on that do not
follow from the operationId (``METHOD_NAMES``) and the clients' template. The options live here only,
so scripts/generate.sh and the no-drift test produce the same bytes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "src" / "slipway" / "_generated"

HEADER = (
    "# File generated from our OpenAPI document (Slipway API {version}) by scripts/generate.py.\n"
    "# Do not edit: run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the server serves).\n"
)

CLIENT_TEMPLATE = ROOT / "scripts" / "templates" / "client.py"

CLIENT_HEADER = (
    "# File generated from scripts/templates/client.py by scripts/generate.py ({how}).\n"
    "# Do not edit: edit the template and run scripts/generate.sh BASE_URL (the suite fails when this file differs from what the generator makes).\n"
)

MODEL_OPTIONS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.10",
    "--formatters", "builtin",
    "--disable-timestamp",
    "--use-standard-collections",
    "--use-union-operator",
    "--use-annotated",
    "--field-constraints",
    "--use-schema-description",
    "--use-field-description",
    "--enum-field-as-literal", "all",
    "--type-mappings", "email=string", "password=string",
    "--output-datetime-class", "AwareDatetime",
]

#: Method names agreed for all three SDKs where "the operationId without the resource noun" says otherwise.
METHOD_NAMES = {
    "getCurrentUser": "me",
    "changeOwnPassword": "change_password",
    "registerOAuthClient": "create",
    "redeliverWebhookDelivery": "redeliver",
}

#: Codes the client sets itself (no response, or one that is not Slipway's), beside the server's.
CLIENT_ERROR_CODES = [
    ("TIMEOUT", "timeout", "The call's timeout passed before a response came (per attempt; no retry after it)."),
    ("NETWORK_ERROR", "network_error", "No response: DNS failure, connection refused or reset."),
    ("INVALID_RESPONSE", "invalid_response", "A success response whose body is not what the API document says."),
    ("REQUEST_ABORTED", "request_aborted", "Not raised by the Python SDK: a cancelled asyncio task gets CancelledError, as asyncio expects."),
]

#: The synchronous client from the template (written as the asynchronous one): these substitutions, in
#: this order. Each must apply at least once, and what they leave must hold no async word, so a change
#: to the template that they no longer cover stops the generator instead of shipping a half-sync client.
UNASYNC: list[tuple[str, str]] = [
    # time.sleep for asyncio.sleep, the imports kept in order.
    (r"import asyncio\nimport copy\nimport dataclasses\nimport os\n", "import copy\nimport dataclasses\nimport os\nimport time\n"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    # Words of docstrings and comments.
    (r"\bAsynchronous client for\b", "Client for"),
    (r"\n *Cancelling the task of a call raises ``asyncio\.CancelledError`` as usual\.", ""),
    (r"\ban async context manager\b", "a context manager"),
    (r"\bAn async generator\b", "A generator"),
    # Names.
    (r"\bhttpx\.AsyncClient\b", "httpx.Client"),
    (r"\basync_resources\b", "resources"),
    (r"\bAsync(Slipway|Page|Resources|OAuth|Iterator)\b", r"\1"),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\baclose\b", "close"),
    # The keywords.
    (r"\basync (def|for|with)\b", r"\1"),
    (r"\bawait ", ""),
]

#: What no line of the synchronous client may still say.
ASYNC_WORDS = re.compile(r"\b(async|await|asyncio|aclose|__aenter__|__aexit__|Async\w*)\b")

#: Names the per-call options take; a parameter of the API with one of these names would clash.
OPTION_NAMES = {"idempotency_key", "timeout", "extra_headers", "max_retries", "self"}


# -- reading the document --------------------------------------------------------------------------


def load(source: str) -> bytes:
    if re.match(r"^https?://", source):
        with urllib.request.urlopen(source.rstrip("/") + "/openapi.json", timeout=30) as response:
            return bytes(response.read())
    return Path(source).read_bytes()


def snake(name: str) -> str:
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return name.lower()


def ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[1] if isinstance(ref, str) else None


class Document:
    def __init__(self, raw: bytes) -> None:
        self.doc: dict[str, Any] = json.loads(raw)
        self.schemas: dict[str, Any] = self.doc["components"]["schemas"]
        self.version: str = self.doc["info"]["version"]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        name = ref_name(schema)
        return self.schemas[name] if name else schema

    def parameter(self, param: dict[str, Any]) -> dict[str, Any]:
        ref = param.get("$ref")
        if isinstance(ref, str):
            resolved: dict[str, Any] = self.doc["components"]["parameters"][ref.rsplit("/", 1)[1]]
            return resolved
        return param


def _singular(plural: str) -> str:
    """Projects -> Project, TrustPolicies -> TrustPolicy."""
    return re.sub(r"ies$", "y", plural) if plural.endswith("ies") else re.sub(r"s$", "", plural)


def namespace_of(tag: str) -> tuple[str, str, list[str]]:
    """'API keys' -> ('api_keys', 'ApiKeys', nouns to strip from operationIds)."""
    words = tag.split()
    attribute = "_".join(w.lower() for w in words)
    camel = "".join(w[0].upper() + w[1:] for w in words)  # APIKeys, OAuthClients, Projects
    cls = "".join(w[0].upper() + w[1:].lower() if w.isupper() else w[0].upper() + w[1:] for w in words)  # ApiKeys
    plural = cls
    singular = _singular(plural)
    camel_singular = _singular(camel)
    return attribute, cls, [plural, singular, camel, camel_singular]


def method_name(operation_id: str, nouns: list[str]) -> str:
    if operation_id in METHOD_NAMES:
        return METHOD_NAMES[operation_id]
    for noun in sorted(set(nouns), key=len, reverse=True):
        if noun in operation_id:
            return snake(operation_id.replace(noun, "", 1))
    raise SystemExit(f"operation {operation_id}: no resource noun {nouns} in it; add it to METHOD_NAMES")


def py_type(doc: Document, schema: dict[str, Any], *, for_body: bool) -> str:
    schema = doc.resolve(schema)
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    nullable = "null" in types
    kind = next((t for t in types if t != "null"), None)
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        out = "Literal[" + ", ".join(repr(v) for v in values) + "]"
    elif kind == "string":
        out = "datetime | str" if schema.get("format") == "date-time" and for_body else "str"
    elif kind == "integer":
        out = "int"
    elif kind == "number":
        out = "float"
    elif kind == "boolean":
        out = "bool"
    elif kind == "array":
        out = f"Sequence[{py_type(doc, schema.get('items', {}), for_body=for_body)}]"
    elif kind == "object":
        out = "Mapping[str, Any]"
    else:
        out = "Any"
    return out + " | None" if nullable and out != "Any" else out


def docstring(summary: str, description: str, indent: str) -> str:
    text = summary.strip().rstrip(".") + "."
    if description.strip():
        text += "\n\n" + description.strip()
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.split("\n")
    body = "\n".join((indent + line) if line.strip() else "" for line in lines[1:])
    return f'{indent}"""{lines[0]}' + ("\n" + body + "\n" + indent if len(lines) > 1 else "") + '"""\n'


class Operation:
    def __init__(self, doc: Document, path: str, http_method: str, op: dict[str, Any]) -> None:
        self.path = path
        self.http_method = http_method.upper()
        self.operation_id: str = op["operationId"]
        self.tag: str = op["tags"][0]
        self.summary: str = op.get("summary", "")
        self.description: str = op.get("description", "")
        attribute, cls, nouns = namespace_of(self.tag)
        self.name = method_name(self.operation_id, nouns)
        params = [doc.parameter(p) for p in op.get("parameters", [])]
        self.idempotent = any(p["in"] == "header" and p["name"].lower() == "idempotency-key" for p in params)
        self.path_params = [p["name"] for p in params if p["in"] == "path"]
        placeholders = re.findall(r"{(\w+)}", path)
        if sorted(placeholders) != sorted(self.path_params):
            raise SystemExit(f"{self.operation_id}: path parameters {self.path_params} do not match {path}")
        self.path_params = placeholders
        self.query = [(p["name"], py_type(doc, p.get("schema", {}), for_body=False), bool(p.get("required"))) for p in params if p["in"] == "query"]
        self.body: list[tuple[str, str, bool]] = []
        self.has_body = False
        content = op.get("requestBody", {}).get("content", {}).get("application/json")
        if content:
            self.has_body = True
            schema = doc.resolve(content["schema"])
            required = set(schema.get("required", []))
            for field, field_schema in schema.get("properties", {}).items():
                self.body.append((field, py_type(doc, field_schema, for_body=True), field in required))
        self.result: str | None = None
        self.list_item: str | None = None
        for status, response in sorted(op["responses"].items()):
            if not status.startswith("2"):
                continue
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            if not schema:
                continue
            name = ref_name(schema)
            if not name:
                raise SystemExit(f"{self.operation_id}: the {status} response is not a named schema")
            self.result = name
            properties = doc.schemas[name].get("properties", {})
            if "pagination" in properties and "data" in properties:
                self.list_item = ref_name(properties["data"].get("items", {}))
            break
        names = [*self.path_params, *(q[0] for q in self.query), *(b[0] for b in self.body)]
        clash = (set(names) & OPTION_NAMES) or {n for n in names if names.count(n) > 1}
        if clash:
            raise SystemExit(f"{self.operation_id}: parameter names {sorted(clash)} clash")

    @property
    def is_list(self) -> bool:
        return self.list_item is not None and self.http_method == "GET"


# -- writing Python --------------------------------------------------------------------------------


def path_expression(op: Operation) -> str:
    if not op.path_params:
        return repr(op.path)
    return 'f"' + re.sub(r"{(\w+)}", r"{_id(\1)}", op.path) + '"'


def options_params(op: Operation) -> list[str]:
    out = ["idempotency_key: str | None = None"] if op.idempotent else []
    return out + ["timeout: Timeout | None = None", "extra_headers: Mapping[str, str] | None = None", "max_retries: int | None = None"]


def options_expression(op: Operation) -> str:
    key = "idempotency_key=idempotency_key, idempotent=True, " if op.idempotent else ""
    return f"RequestOptions({key}timeout=timeout, extra_headers=extra_headers, max_retries=max_retries)"


def signature(op: Operation, name: str, returns: str, *, asynchronous: bool, paging: bool) -> str:
    params = ["self", *(f"{p}: str" for p in op.path_params)]
    keywords: list[str] = []
    for field, annotation, required in op.query:
        if paging and field == "page":
            continue
        keywords.append(f"{field}: {annotation}" if required else f"{field}: {annotation} | None = None" if "None" not in annotation else f"{field}: {annotation} = None")
    for field, annotation, required in op.body:
        keywords.append(f"{field}: {annotation}" if required else f"{field}: {annotation} = NOT_GIVEN")
    keywords += options_params(op)
    prefix = "async def" if asynchronous else "def"
    return f"    {prefix} {name}({', '.join(params)}, *, {', '.join(keywords)}) -> {returns}:\n"


def method_code(op: Operation, *, asynchronous: bool) -> str:
    page, iterator, wait = ("AsyncPage", "AsyncIterator", "await ") if asynchronous else ("Page", "Iterator", "")
    path = path_expression(op)
    options = options_expression(op)
    out = ""
    if op.is_list:
        item = op.list_item
        # list -> list_*, list_deliveries -> list_all_deliveries
        all_name = "list_all" + op.name[len("list"):]
        params = "query(" + ", ".join(f"{q}={q}" for q, _, _ in op.query) + ")"
        out += signature(op, op.name, f"{page}[{item}]", asynchronous=asynchronous, paging=False)
        out += docstring(op.summary, op.description + "\n\nOne page: ``data``, ``pagination``, ``next_page()``.", " " * 8)
        out += f"        return {wait}self._client._get_page({path}, {item}, {params}, {options})\n\n"
        all_params = "query(" + ", ".join(f"{q}={q}" for q, _, _ in op.query if q != "page") + ")"
        out += signature(op, all_name, f"{iterator}[{item}]", asynchronous=False, paging=True)
        out += docstring(op.summary, "Every item, fetching pages (of ``per_page``) as the iteration reaches them.", " " * 8)
        out += f"        return self._client._iterate({path}, {item}, {all_params}, {options})\n\n"
        return out
    returns = op.result or "None"
    cast = op.result or "None"
    out += signature(op, op.name, returns, asynchronous=asynchronous, paging=False)
    out += docstring(op.summary, op.description, " " * 8)
    args = [repr(op.http_method), path, cast]
    if op.query:
        args.append("params=query(" + ", ".join(f"{q}={q}" for q, _, _ in op.query) + ")")
    if op.has_body:
        args.append("json=body(" + ", ".join(f"{b}={b}" for b, _, _ in op.body) + ")")
    args.append(f"options={options}")
    out += f"        return {wait}self._client._request({', '.join(args)})\n\n"
    return out


# Hand-written methods a namespace takes from a base class (src/slipway/_follow.py): {class: base}; the
# async namespace takes the base's Async twin.
HANDWRITTEN_BASES = {"DeploymentLogs": "LogFollowing"}


def resources_module(doc: Document, operations: list[Operation], *, asynchronous: bool) -> str:
    client, iterator = ("AsyncSlipway", "AsyncIterator") if asynchronous else ("Slipway", "Iterator")
    prefix = "Async" if asynchronous else ""
    models = sorted({m for op in operations for m in (op.list_item if op.is_list else op.result,) if m})
    tags: dict[str, list[Operation]] = {}
    for op in operations:
        tags.setdefault(op.tag, []).append(op)
    out = HEADER.format(version=doc.version)
    out += f'"""The API\'s resources for the {"asynchronous" if asynchronous else "synchronous"} client, one class per tag of the OpenAPI document.\n\n'
    out += "Each method is one /v1 operation; ``list*`` return one page, ``list_all*`` iterate over every page.\n"
    out += "Keyword arguments left out are not sent (``None`` is sent as JSON ``null`` where the API accepts it).\n"
    out += '"""\n\n'
    out += "from __future__ import annotations\n\n"
    out += "from datetime import datetime\n"
    out += f"from typing import TYPE_CHECKING, Any, {iterator}, Literal, Mapping, Sequence, cast\n\n"
    out += "from .._base import NOT_GIVEN, RequestOptions, Timeout, body, path_id as _id, query\n"
    bases = sorted({prefix + HANDWRITTEN_BASES[namespace_of(op.tag)[1]] for op in operations if namespace_of(op.tag)[1] in HANDWRITTEN_BASES})
    if bases:
        out += f"from .._follow import {', '.join(bases)}\n"
    out += "from .models import (\n" + "".join(f"    {m},\n" for m in models) + ")\n\n"
    out += "if TYPE_CHECKING:\n"
    out += "    from .client import Page, Slipway\n" if not asynchronous else "    from .async_client import AsyncPage, AsyncSlipway\n"
    out += "\n"
    out += "__all__ = [" + ", ".join(repr(prefix + namespace_of(t)[1]) for t in tags) + f", {prefix + 'Resources'!r}]\n\n"
    out += "\n"
    for tag, ops in tags.items():
        attribute, cls, _ = namespace_of(tag)
        base = HANDWRITTEN_BASES.get(cls)
        out += f"class {prefix}{cls}({prefix}{base}):\n" if base else f"class {prefix}{cls}:\n"
        out += f'    """{tag}: ``client.{attribute}``."""\n\n'
        out += f"    def __init__(self, client: {client}) -> None:\n        self._client = client\n\n"
        for op in ops:
            out += method_code(op, asynchronous=asynchronous)
        out = out.rstrip("\n") + "\n\n\n"
    out += f"class {prefix}Resources:\n"
    out += f'    """The resource namespaces of :class:`~slipway.{client}`."""\n\n'
    for tag in tags:
        attribute, cls, _ = namespace_of(tag)
        out += f"    {attribute}: {prefix}{cls}\n"
    out += "\n    def _bind_resources(self) -> None:\n"
    out += f'        client = cast("{client}", self)\n'
    for tag in tags:
        attribute, cls, _ = namespace_of(tag)
        out += f"        self.{attribute} = {prefix}{cls}(client)\n"
    return out


def unasync(source: str) -> str:
    """The synchronous client's code from the template's asynchronous code (``UNASYNC``)."""
    for pattern, replacement in UNASYNC:
        source, count = re.subn(pattern, replacement, source)
        if count == 0:
            raise SystemExit(f"{CLIENT_TEMPLATE.name}: the rule {pattern!r} of UNASYNC no longer applies; update UNASYNC with the template")
    left = [f"{n}: {line.strip()}" for n, line in enumerate(source.splitlines(), 1) if ASYNC_WORDS.search(line)]
    if left:
        raise SystemExit(f"{CLIENT_TEMPLATE.name}: the synchronous client would still say (add a rule to UNASYNC):\n" + "\n".join(left))
    return source


def client_modules(template: str) -> tuple[str, str]:
    """(client.py, async_client.py) from the template: its leading comment lines left out, a header and
    a module docstring each."""
    lines = template.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    code = "".join(lines)
    sync = CLIENT_HEADER.format(how="without async and await") + '"""The synchronous client: :class:`Slipway`, and :class:`Page` for lists."""\n\n' + unasync(code)
    asynchronous = (
        CLIENT_HEADER.format(how="as written there")
        + '"""The asynchronous client: :class:`AsyncSlipway`, and :class:`AsyncPage` for lists. The same API as\n'
        + ":class:`Slipway` (made from the same template), with ``await`` and ``async for``.\n"
        + '"""\n\n'
        + code
    )
    return sync, asynchronous


def meta_module(doc: Document) -> str:
    error = doc.schemas["Error"]["properties"]["error"]["properties"]["code"]
    out = HEADER.format(version=doc.version)
    out += '"""The API version this package targets, and every error ``code`` as a named constant."""\n\n'
    out += "from __future__ import annotations\n\nfrom enum import Enum\n\n"
    out += f"#: The Slipway API version this package was generated from (the OpenAPI document's ``info.version``).\nAPI_VERSION = {doc.version!r}\n\n\n"
    out += "class ErrorCode(str, Enum):\n"
    out += '    """A ``SlipwayError.code``: the server\'s codes (its ``Error`` schema), then the client\'s own.\n\n'
    out += "    Compares equal to the plain string (``err.code == ErrorCode.NOT_FOUND``). An error response that is\n"
    out += "    not Slipway's JSON (a proxy's HTML 502) has the code ``http_<status>`` (``http_502``), which is not a member.\n"
    out += '    """\n\n'
    for value in error["enum"]:
        out += f"    {value.upper()} = {value!r}\n"
    for member, value, about in CLIENT_ERROR_CODES:
        out += f"    {member} = {value!r}\n    \"\"\"{about}\"\"\"\n"
    out += "\n    def __str__(self) -> str:\n        return str(self.value)\n"
    return out


def generate(source: str, output: Path) -> None:
    raw = load(source)
    doc = Document(raw)
    operations = [
        Operation(doc, path, method, op)
        for path, item in doc.doc["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete") and path.startswith("/v1/")
    ]
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        document = Path(tmp) / "openapi.json"
        document.write_bytes(raw)
        subprocess.run(
            [
                sys.executable, "-m", "datamodel_code_generator", "--input", str(document), "--output", str(output / "models.py"),
                *MODEL_OPTIONS, "--custom-file-header", HEADER.format(version=doc.version).rstrip("\n"),
            ],
            check=True,
        )
    (output / "resources.py").write_text(resources_module(doc, operations, asynchronous=False))
    (output / "async_resources.py").write_text(resources_module(doc, operations, asynchronous=True))
    (output / "meta.py").write_text(meta_module(doc))
    sync_client, async_client = client_modules(CLIENT_TEMPLATE.read_text())
    (output / "client.py").write_text(sync_client)
    (output / "async_client.py").write_text(async_client)
    (output / "__init__.py").write_text(
        HEADER.format(version=doc.version)
        + '"""Generated code: from the OpenAPI document the models, resources, API version and error codes; from\n'
        + 'scripts/templates/client.py the sync and async clients."""\n'
    )


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python scripts/generate.py BASE_URL|openapi.json [OUTPUT_DIR]")
    generate(sys.argv[1], Path(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_OUTPUT)
