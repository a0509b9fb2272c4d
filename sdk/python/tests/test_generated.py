"""No drift: the checked-in models are exactly what the pinned generator makes from the running
server's /openapi.json; the async resources are exactly the transform of the sync ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .harness import Harness

ROOT = Path(__file__).resolve().parents[1]


def test_generated_models_match_the_servers_openapi_document(harness: Harness, tmp_path: Path) -> None:
    output = tmp_path / "models.py"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "generate.py"), harness.base_url, str(output)], check=True, timeout=120)
    checked_in = (ROOT / "src" / "slipway" / "_generated" / "models.py").read_bytes()
    assert output.read_bytes() == checked_in, "src/slipway/_generated/models.py is stale: run scripts/generate.sh BASE_URL"


def test_async_resources_match_the_sync_ones() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
