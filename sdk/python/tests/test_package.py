"""Release and install checks, as a newcomer and CI would do them:

- ``python -m build`` makes an sdist and a wheel with everything a user needs and nothing else;
- the wheel, installed into a fresh venv outside the repository, imports and runs the README's quick
  start against the live server;
- ``pip install ./sdk/python`` (from the repository root, as the README says) into another fresh venv
  does the same.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import slipway

from .harness import Harness

ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = ROOT.parents[1]
VERSION = slipway.__version__


def quick_start(harness: Harness) -> str:
    """The README's quick start, with its placeholders replaced by the live server's values."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Quick start") :]
    snippet = re.findall(r"^```python\n(.*?)^```$", section, flags=re.M | re.S)[0]
    values = {
        "https://slipway.example.com": harness.base_url,
        "slw_...": harness.info["api_key"]["key"],
        "proj_...": harness.info["api_key"]["project_id"],
    }
    for placeholder, value in values.items():
        assert placeholder in snippet, f"the quick start no longer has {placeholder!r}"
        snippet = snippet.replace(placeholder, value)
    return snippet


def fresh_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin" / "python"


def pip_install(python: Path, target: str, cwd: Path) -> None:
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", target], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr


def run_quick_start(python: Path, venv: Path, harness: Harness, workdir: Path) -> None:
    script = workdir / "quick_start.py"
    script.write_text("import slipway\nprint('installed', slipway.__version__, slipway.API_VERSION, slipway.__file__)\n" + quick_start(harness))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLIPWAY_", "PYTHON"))}
    result = subprocess.run([str(python), str(script)], cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    print(result.stdout.strip())
    lines = result.stdout.splitlines()
    installed = lines[0].split()
    assert installed[1:3] == [VERSION, slipway.API_VERSION] and installed[3].startswith(str(venv))
    assert re.fullmatch(r"dep_\w+ queued", lines[1])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    keep = os.environ.get("SLIPWAY_PYTHON_DIST")  # CI keeps the release artifacts (.ci/run)
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for artifact in out.iterdir():
            shutil.copy2(artifact, keep)
    return out


def test_build_makes_a_complete_wheel_and_sdist(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == [f"slipway-{VERSION}-py3-none-any.whl", f"slipway-{VERSION}.tar.gz"]
    wheel = zipfile.ZipFile(built / f"slipway-{VERSION}-py3-none-any.whl")
    names = set(wheel.namelist())
    for module in ["__init__.py", "py.typed", "webhooks.py", "_generated/models.py", "_generated/resources.py", "_generated/async_resources.py", "_generated/meta.py"]:
        assert f"slipway/{module}" in names
    assert f"slipway-{VERSION}.dist-info/licenses/LICENSE" in names
    assert not any(name.startswith(("tests/", "scripts/")) or "__pycache__" in name for name in names)
    metadata = wheel.read(f"slipway-{VERSION}.dist-info/METADATA").decode()
    assert f"Version: {VERSION}" in metadata and "License-Expression: Apache-2.0" in metadata
    assert f"targets the Slipway API {slipway.API_VERSION}" in metadata  # the README is the long description
    for requirement in ("httpx", "pydantic", "authlib"):
        assert f"Requires-Dist: {requirement}" in metadata
    with tarfile.open(built / f"slipway-{VERSION}.tar.gz") as sdist:
        names = set(sdist.getnames())
    assert f"slipway-{VERSION}/src/slipway/_generated/resources.py" in names and f"slipway-{VERSION}/pyproject.toml" in names


def test_the_wheel_installs_into_a_fresh_venv_and_runs_the_quick_start(built: Path, harness: Harness, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    pip_install(python, str(built / f"slipway-{VERSION}-py3-none-any.whl"), tmp_path)
    run_quick_start(python, venv, harness, tmp_path)


def test_pip_install_from_the_checkout_as_the_readme_says(harness: Harness, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    assert "pip install ./sdk/python" in readme
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    pip_install(python, "./sdk/python", REPO_ROOT)  # from the repository root, as the README says
    run_quick_start(python, venv, harness, tmp_path)
