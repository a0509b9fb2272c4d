"""Verifying Slipway webhook deliveries.

A delivery is ``POST <your url>`` with the event as JSON and
``Slipway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">``, keyed with the whole
``whsec_…`` secret. After a secret rotation the old secret signs beside the new one for a while (a
second ``v1=``), so any ``v1`` may match.

    event = slipway.webhooks.construct_event(request.body, request.headers["Slipway-Signature"], secret)

Both functions raise :class:`SignatureVerificationError` for a delivery that is not Slipway's;
:func:`construct_event` raises :class:`WebhookPayloadError` for a signed body it cannot read as an event.
Both are :class:`~slipway.SlipwayError`.
"""

from __future__ import annotations

import hashlib
import hmac
import time

import pydantic

from ._errors import SlipwayError
from ._generated.models import WebhookPayload

DEFAULT_TOLERANCE = 300
SIGNATURE_HEADER = "Slipway-Signature"


class SignatureVerificationError(SlipwayError):
    """The Slipway-Signature header is missing, malformed, too old, or matches no secret: the request
    is not a delivery from Slipway (answer it 400)."""


class WebhookPayloadError(SlipwayError):
    """The body is signed correctly but is not an event as this version of the SDK knows it (not JSON,
    or a field missing or of another type). ``__cause__`` has the details."""


def _text(payload: bytes | str) -> bytes:
    return payload.encode("utf-8") if isinstance(payload, str) else payload


def verify_signature(
    payload: bytes | str,
    header: str | None,
    secret: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> None:
    """Returns ``None`` when ``header`` signs ``payload`` (the body exactly as received) with ``secret``
    within ``tolerance`` seconds of now; raises :class:`SignatureVerificationError` otherwise. Compares
    in constant time."""
    if not header:
        raise SignatureVerificationError("No Slipway-Signature header.")
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t" and value.isdigit():
            timestamp = int(value)
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not signatures:
        raise SignatureVerificationError("The Slipway-Signature header has no timestamp or no v1 signature.")
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise SignatureVerificationError("The signature's timestamp is outside the tolerance.")
    expected = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode() + _text(payload), hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, candidate) for candidate in signatures):
        raise SignatureVerificationError("No signature matches the secret.")


def construct_event(
    payload: bytes | str,
    header: str | None,
    secret: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> WebhookPayload:
    """Verifies the delivery (see :func:`verify_signature`), then returns its body as a
    :class:`~slipway.models.WebhookPayload` (``id``, ``type``, ``actor``, ``project_id``, ``data``,
    ``created_at``). Raises :class:`SignatureVerificationError` or :class:`WebhookPayloadError`."""
    verify_signature(payload, header, secret, tolerance=tolerance, now=now)
    try:
        return WebhookPayload.model_validate_json(_text(payload))
    except pydantic.ValidationError as err:
        raise WebhookPayloadError(f"The delivery is signed but is not an event: {err.error_count()} problem(s), first: {err.errors()[0]['msg']} at {'.'.join(str(p) for p in err.errors()[0]['loc'])}") from err
