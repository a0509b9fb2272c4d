"""`python -m build` makes an sdist and a wheel with everything a user needs and nothing else."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_build_makes_a_complete_wheel_and_sdist(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = zipfile.ZipFile(tmp_path / "slipway-0.1.0-py3-none-any.whl")
    names = set(wheel.namelist())
    for expected in ["slipway/__init__.py", "slipway/py.typed", "slipway/_generated/models.py", "slipway/webhooks.py", "slipway-0.1.0.dist-info/licenses/LICENSE"]:
        assert expected in names
    assert not any(name.startswith(("tests/", "scripts/")) or "__pycache__" in name for name in names)
    metadata = wheel.read("slipway-0.1.0.dist-info/METADATA").decode()
    assert "Version: 0.1.0" in metadata and "License-Expression: Apache-2.0" in metadata
    for requirement in ("httpx", "pydantic", "authlib"):
        assert f"Requires-Dist: {requirement}" in metadata
    with tarfile.open(tmp_path / "slipway-0.1.0.tar.gz") as sdist:
        assert "slipway-0.1.0/src/slipway/_generated/models.py" in sdist.getnames()
