"""The API's objects (pydantic models generated from /openapi.json)."""

from ._generated.models import *  # noqa: F403
