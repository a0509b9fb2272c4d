"""Writes src/slipway/_async_resources.py from src/slipway/resources.py (the async twin of every
resource method), so the two cannot drift. Run after editing resources.py; a test checks it was.

Usage: python scripts/unasync.py [--check]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "slipway"


def transform(source: str) -> str:
    out = source.replace(
        '"""The API\'s resources for the synchronous client',
        '"""Generated from resources.py by scripts/unasync.py: do not edit.\n\nThe API\'s resources for the asynchronous client',
    )
    out = out.replace("from ._client import Page, Slipway", "from ._async_client import AsyncPage, AsyncSlipway")
    out = out.replace("from typing import TYPE_CHECKING, Any, Iterator,", "from typing import TYPE_CHECKING, Any, AsyncIterator,")
    out = out.replace("client: Slipway", "client: AsyncSlipway")
    out = re.sub(r"\bPage\[", "AsyncPage[", out)
    out = re.sub(r"\bIterator\[", "AsyncIterator[", out)
    out = re.sub(r"^class (?!_)(\w+)\(", r"class Async\1(", out, flags=re.M)
    # Every method but the list_all* ones (which return async generators) becomes a coroutine.
    out = re.sub(r"^    def (?!list_all\w*\(|__init__\b)", "    async def ", out, flags=re.M)
    out = re.sub(r"return self\._client\._(request|get_page)\(", r"return await self._client._\1(", out)
    return out


if __name__ == "__main__":
    target = SRC / "_async_resources.py"
    generated = transform((SRC / "resources.py").read_text())
    if "--check" in sys.argv:
        sys.exit(0 if target.read_text() == generated else "src/slipway/_async_resources.py is stale: run scripts/unasync.py")
    target.write_text(generated)
