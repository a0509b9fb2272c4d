"""client.webhooks against the live server: CRUD with paging, and deliveries to a real HTTP receiver on
loopback (the harness allows loopback URLs) verified with the SDK's own ``webhooks.construct_event``."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from slipway import AsyncSlipway, NotFoundError, SignatureVerificationError, Slipway, webhooks
from slipway.models import Event, WebhookDelivery, WebhookWithSecret

from .conftest import owner_oauth
from .harness import Harness


@dataclass
class Received:
    delivery_id: str | None
    event_type: str | None
    event: Event | None
    error: SignatureVerificationError | None


class Receiver:
    """A webhook endpoint on 127.0.0.1 that verifies each delivery against every secret it trusts
    (during a rotation the header carries a ``v1`` for each) and answers 204, or 401."""

    def __init__(self) -> None:
        self.secrets: list[str] = []
        self.received: queue.Queue[Received] = queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                payload = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                got = Received(self.headers.get("Slipway-Delivery"), self.headers.get("Slipway-Event"), None, None)
                try:
                    if not receiver.secrets:
                        raise SignatureVerificationError("no secret")
                    for secret in list(receiver.secrets):
                        got.event = webhooks.construct_event(payload, self.headers.get(webhooks.SIGNATURE_HEADER), secret)
                except SignatureVerificationError as error:
                    got.error = error
                self.send_response(401 if got.error else 204)
                self.end_headers()
                receiver.received.put(got)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/slipway"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def next(self, matching: Any = None) -> Received:
        """The next delivery (that ``matching`` accepts), within 30 s."""
        deadline = time.monotonic() + 30
        while True:
            got = self.received.get(timeout=max(0.01, deadline - time.monotonic()))
            assert got.error is None, got.error
            if matching is None or matching(got):
                return got

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def test_webhooks_create_list_get_update_rotate_delete(admin_client: Slipway, unique: str) -> None:
    # Loopback URLs (the harness allows them); nothing listens there, and nothing is pinged.
    created = [admin_client.webhooks.create(url=f"http://127.0.0.1:9/py-{unique}/{i}", events=["deployment.status_changed"], description=f"py {unique}") for i in range(3)]
    for hook in created:
        assert isinstance(hook, WebhookWithSecret) and hook.status == "enabled"
        assert hook.secret is not None and hook.secret.startswith("whsec_")

    first = admin_client.webhooks.list(per_page=2)
    assert len(first.data) == 2 and first.pagination.total >= 3 and first.has_next_page
    everything = list(admin_client.webhooks.list_all(per_page=2))
    ids = [w.id for w in everything]
    assert len(ids) == len(set(ids)) >= 3 and {w.id for w in created} <= set(ids)
    assert all("secret" not in w.model_dump() for w in everything)

    got = admin_client.webhooks.get(created[0].id)
    assert (got.id, got.url, got.description) == (created[0].id, created[0].url, f"py {unique}")
    updated = admin_client.webhooks.update(created[0].id, events=["*"], status="disabled", description=None)
    assert (updated.status, updated.description) == ("disabled", None)
    assert updated.events == ["*"]

    rotated = admin_client.webhooks.rotate_secret(created[1].id)
    assert rotated.id == created[1].id and rotated.secret is not None
    assert rotated.secret.startswith("whsec_") and rotated.secret != created[1].secret

    for hook in created:
        admin_client.webhooks.delete(hook.id)
    with pytest.raises(NotFoundError):
        admin_client.webhooks.get(created[0].id)


def test_a_ping_reaches_a_loopback_receiver_signed_with_the_secret_from_creation(admin_client: Slipway, receiver: Receiver) -> None:
    hook = admin_client.webhooks.create(url=receiver.url, events=["deployment.status_changed"])
    try:
        assert hook.secret is not None
        receiver.secrets = [hook.secret]
        ping = admin_client.webhooks.ping(hook.id)
        assert isinstance(ping, WebhookDelivery) and (ping.webhook_id, ping.event_type) == (hook.id, "webhook.ping")
        got = receiver.next()
        assert (got.delivery_id, got.event_type) == (ping.id, "webhook.ping")
        assert got.event is not None and (got.event.id, got.event.type) == (ping.event_id, "webhook.ping")

        # After a rotation both secrets sign, a v1 each.
        rotated = admin_client.webhooks.rotate_secret(hook.id)
        assert rotated.secret is not None
        receiver.secrets = [hook.secret, rotated.secret]
        second = admin_client.webhooks.ping(hook.id)
        receiver.next(lambda r: r.delivery_id == second.id)

        # The log, newest first, through pages of one, once both are recorded as succeeded (bounded wait).
        log: list[WebhookDelivery] = []
        for _ in range(100):
            log = list(admin_client.webhooks.list_all_deliveries(hook.id, per_page=1))
            if len(log) == 2 and all(d.status == "succeeded" for d in log):
                break
            time.sleep(0.1)
        assert [d.id for d in log] == [second.id, ping.id]
        assert all(d.status == "succeeded" and d.attempt_count == 1 and d.attempts[0].status_code == 204 for d in log)
        page = admin_client.webhooks.list_deliveries(hook.id, per_page=1)
        assert page.pagination.total == 2 and len(page.data) == 1 and page.has_next_page

        # A redelivery: the same Slipway-Delivery id and event, signed anew.
        again = admin_client.webhooks.redeliver(hook.id, ping.id)
        assert (again.id, again.status) == (ping.id, "pending")
        redelivered = receiver.next(lambda r: r.delivery_id == ping.id)
        assert redelivered.event is not None and redelivered.event.id == ping.event_id
    finally:
        admin_client.webhooks.delete(hook.id)


async def test_async_webhooks_deliver_a_deployment_status_change(harness: Harness, receiver: Receiver, unique: str) -> None:
    info = harness.info
    async with AsyncSlipway(base_url=harness.base_url, access_token=owner_oauth(harness).access_token()) as admin:
        hook = await admin.webhooks.create(url=receiver.url, events=["deployment.status_changed"], description=f"async {unique}")
        try:
            assert hook.secret is not None
            receiver.secrets = [hook.secret]
            assert hook.id in [w.id async for w in admin.webhooks.list_all(per_page=1)]
            # CI moves a deployment with its API key; other tests change deployments of the account too.
            async with AsyncSlipway(base_url=harness.base_url, api_key=info["api_key"]["key"]) as ci:
                deployment = await ci.deployments.create(info["api_key"]["project_id"], environment="staging", branch=f"hooked-{unique}")
                await ci.deployments.update(info["api_key"]["project_id"], deployment.id, status="building")
            got = receiver.next(lambda r: r.event is not None and r.event.data.get("deployment_id") == deployment.id)
            assert got.event is not None and got.event_type == got.event.type == "deployment.status_changed"
            assert (got.event.data["from"], got.event.data["to"]) == ("queued", "building")
            deliveries = [d async for d in admin.webhooks.list_all_deliveries(hook.id, per_page=1)]
            assert got.delivery_id in [d.id for d in deliveries]
        finally:
            await admin.webhooks.delete(hook.id)
