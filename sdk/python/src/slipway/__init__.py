"""Official Python client for the Slipway API.

    from slipway import Slipway

    client = Slipway(base_url="https://slipway.example.com", api_key="slw_...")
    deployment = client.deployments.create("proj_...", environment="production", branch="main")
"""

from . import models, webhooks
from ._base import NOT_GIVEN, RetryPolicy
from ._errors import (
    APIConnectionError,
    InvalidResponseError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    SlipwayError,
    UnprocessableEntityError,
)
from ._generated.async_client import AsyncPage, AsyncSlipway
from ._generated.client import Page, Slipway
from ._generated.meta import API_VERSION, ErrorCode
from ._version import __version__
from ._follow import LogEvent
from .ci_token import JWT_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT, exchange_ci_token, read_ci_token
from .dpop import DPoPKey
from .oauth import AsyncOAuth, AuthorizationRequest, OAuth, OAuthError
from .webhooks import SignatureVerificationError, WebhookPayloadError

__all__ = [
    "JWT_TOKEN_TYPE",
    "TOKEN_EXCHANGE_GRANT",
    "exchange_ci_token",
    "read_ci_token",
    "API_VERSION",
    "APIConnectionError",
    "InvalidResponseError",
    "LogEvent",
    "APIStatusError",
    "APITimeoutError",
    "AsyncOAuth",
    "AsyncPage",
    "AsyncSlipway",
    "AuthenticationError",
    "AuthorizationRequest",
    "BadRequestError",
    "ConflictError",
    "DPoPKey",
    "ErrorCode",
    "NOT_GIVEN",
    "NotFoundError",
    "OAuth",
    "OAuthError",
    "Page",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "SignatureVerificationError",
    "Slipway",
    "SlipwayError",
    "UnprocessableEntityError",
    "WebhookPayloadError",
    "__version__",
    "models",
    "webhooks",
]
