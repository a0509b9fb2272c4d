"""Webhook signature verification: Slipway-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

import slipway
from slipway import SignatureVerificationError, webhooks

SECRET = "whsec_c2xpcHdheS10ZXN0LXNlY3JldA"
BODY = '{"id":"evt_01jd8z9r3t5v7x9z1b3d5f7h9k","type":"webhook.ping"}'
# From openssl: printf '%s.%s' 1700000000 "$BODY" | openssl dgst -sha256 -hmac "$SECRET"
KNOWN_V1 = "4a5002a2bb4140286fb90d902a63771c0746c7902c46e3bfcffcd9712e7bd84e"
T = 1700000000


def test_accepts_a_known_signature() -> None:
    webhooks.verify_signature(BODY, f"t={T},v1={KNOWN_V1}", SECRET, now=T + 10)
    webhooks.verify_signature(BODY.encode(), f"t={T}, v1={KNOWN_V1}", SECRET, now=T - 10)


def test_accepts_any_v1_during_a_secret_rotation() -> None:
    other = hmac.new(b"whsec_new", f"{T}.{BODY}".encode(), hashlib.sha256).hexdigest()
    webhooks.verify_signature(BODY, f"t={T},v1={other},v1={KNOWN_V1}", SECRET, now=T)
    webhooks.verify_signature(BODY, f"t={T},v1={other},v1={KNOWN_V1}", "whsec_new", now=T)


@pytest.mark.parametrize(
    ("body", "header", "now"),
    [
        (BODY + " ", f"t={T},v1={KNOWN_V1}", T),  # body changed
        (BODY, f"t={T + 1},v1={KNOWN_V1}", T),  # timestamp changed
        (BODY, f"t={T},v1={KNOWN_V1}", T + 301),  # too old
        (BODY, f"t={T},v1={KNOWN_V1}", T - 301),  # too far ahead
        (BODY, f"v1={KNOWN_V1}", T),  # no timestamp
        (BODY, f"t={T}", T),  # no signature
        (BODY, None, T),  # no header
    ],
)
def test_refuses(body: str, header: str | None, now: int) -> None:
    with pytest.raises(SignatureVerificationError):
        webhooks.verify_signature(body, header, SECRET, now=now)


def test_refuses_another_secret() -> None:
    with pytest.raises(SignatureVerificationError):
        webhooks.verify_signature(BODY, f"t={T},v1={KNOWN_V1}", "whsec_other", now=T)


def test_construct_event_parses_a_verified_delivery() -> None:
    body = json.dumps(
        {
            "id": "evt_01jd8z9r3t5v7x9z1b3d5f7h9k",
            "type": "deployment.status_changed",
            "actor": {"type": "api_key", "id": "key_01jd8z4c8p6r0t2v4x6z8b0d2f"},
            "project_id": "proj_01jd8x3k9q7m2v4t6r8w0y1z3b",
            "data": {"from": "deploying", "to": "succeeded"},
            "created_at": "2026-01-15T09:30:00.000Z",
        }
    )
    t = 1768469400
    v1 = hmac.new(SECRET.encode(), f"{t}.{body}".encode(), hashlib.sha256).hexdigest()
    event = webhooks.construct_event(body.encode(), f"t={t},v1={v1}", SECRET, now=t)
    assert isinstance(event, slipway.models.WebhookPayload)
    assert event.type == "deployment.status_changed" and event.data["to"] == "succeeded"


def _signed(body: str, t: int = T) -> str:
    return f"t={t},v1=" + hmac.new(SECRET.encode(), f"{t}.{body}".encode(), hashlib.sha256).hexdigest()


@pytest.mark.parametrize(
    "body",
    [
        '{"id": 42, "type": "webhook.ping"}',  # an id of another type, fields missing
        '{"id":"evt_1","type":"webhook.ping","actor":{"type":"user","id":"usr_1"},"project_id":null,"data":{},"created_at":"yesterday"}',
        "<html>not json</html>",
    ],
)
def test_a_signed_body_that_is_not_an_event_raises_the_sdks_own_error(body: str) -> None:
    import pydantic

    with pytest.raises(webhooks.WebhookPayloadError) as caught:
        webhooks.construct_event(body, _signed(body), SECRET, now=T)
    err = caught.value
    assert isinstance(err, slipway.SlipwayError) and not isinstance(err, pydantic.ValidationError)
    assert not isinstance(err, SignatureVerificationError)
    assert isinstance(err.__cause__, pydantic.ValidationError)
    assert slipway.WebhookPayloadError is webhooks.WebhookPayloadError


def test_verify_signature_returns_none_when_the_signature_is_good() -> None:
    assert webhooks.verify_signature(BODY, f"t={T},v1={KNOWN_V1}", SECRET, now=T) is None
