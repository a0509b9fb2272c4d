"""schemathesis hooks for test/http/schemathesis.test.ts (loaded through SCHEMATHESIS_HOOKS)."""

import os
import re
import uuid

import schemathesis

VALID_KEY = re.compile(r"[\x21-\x7e]{1,255}\Z")


@schemathesis.hook
def before_call(context, case, kwargs):
    """Makes every valid Idempotency-Key unique, as the document asks ("any unique string").

    The generator reuses example and boundary values ("0", the documented example) across different
    bodies, and a key reused with another body is refused by design (422 idempotency_key_reused). An
    invalid key is left as generated, so the header's own rules are still fuzzed.
    """
    headers = case.headers or {}
    for name, value in list(headers.items()):
        if name.lower() == "idempotency-key" and isinstance(value, str) and VALID_KEY.match(value):
            headers[name] = f"{value[:200]}-{uuid.uuid4()}"


@schemathesis.hook("before_call")
def keep_own_identity(context, case, kwargs):
    """Keeps the fuzzer from removing the identity its own token stands for.

    Its stateful phase follows links, e.g. from `GET /v1/oauth_clients` to `DELETE /v1/oauth_clients/{id}`
    or from `GET /v1/users/me` to `DELETE /v1/users/{id}` (allowed once it has added another owner).
    Deleting the token's own client or user, or demoting that user, ends the token, and every later
    request would only see 401. Those ids are swapped for unknown ones (a 404) on the calls that change
    or remove them; every other id is used as generated.
    """
    params = case.path_parameters or {}
    if case.method.upper() == "GET":
        return
    own_client = os.environ.get("SLIPWAY_FUZZ_CLIENT_ID")
    if own_client and params.get("client_id") == own_client:
        params["client_id"] = f"cli_{uuid.uuid4().hex[:20]}"
    own_user = os.environ.get("SLIPWAY_FUZZ_USER_ID")
    if own_user and params.get("user_id") == own_user:
        params["user_id"] = "usr_" + "0" * 26
