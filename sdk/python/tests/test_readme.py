"""The README examples (this package's, and the Python one in the repository README's "Client
libraries" section) and the Python examples of the live server's /docs type-check against the SDK
with mypy: a renamed method or argument fails here."""

from __future__ import annotations

import html
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from .harness import Harness

ROOT = Path(__file__).resolve().parents[1]
REPO_ROOT = ROOT.parents[1]

# The reader's own values and functions, which the examples use without defining them.
PRELUDE = '''\
from typing import Any

from slipway import AsyncSlipway, OAuth, Slipway

client: Slipway
aclient: AsyncSlipway
oauth: OAuth
request: Any
secret: str
project_id: str
client_id: str
callback_url: str
saved_token: dict[str, Any]


def save_token(token: dict[str, Any]) -> None: ...
def save_secret(secret: str | None) -> None: ...

'''


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", markdown, flags=re.M | re.S)


def docs_blocks(harness: Harness) -> list[str]:
    page = httpx.get(f"{harness.base_url}/docs", timeout=30).text
    pattern = r'<pre class="example" data-example="sdk" data-language="python" data-task="[a-z]+"><code>(.*?)</code></pre>'
    return [html.unescape(code) for code in re.findall(pattern, page, flags=re.S)]


def test_readme_and_docs_examples_type_check(harness: Harness, tmp_path: Path) -> None:
    own = python_blocks((ROOT / "README.md").read_text())
    readme = (REPO_ROOT / "README.md").read_text()
    start = readme.index("## Client libraries")
    repository = python_blocks(readme[start : readme.index("\n## ", start + 1)])
    docs = docs_blocks(harness)
    assert len(own) >= 6 and len(repository) >= 1 and len(docs) == 2
    parts = [PRELUDE]
    for i, block in enumerate(own + repository + docs):
        # Each example is the body of a function of its own (so `return` and `await` are allowed);
        # its imports stay inside it, and names it defines shadow the prelude's.
        parts.append(f"async def example_{i}() -> Any:\n{textwrap.indent(block, '    ')}\n\n")
    examples = tmp_path / "readme_examples.py"
    examples.write_text("".join(parts))
    # --disable-error-code assignment: examples re-bind a name to a wider type (page = page.next_page()).
    flags = ["--no-incremental", "--check-untyped-defs", "--warn-unused-ignores", "--disable-error-code", "assignment", "--config-file", "/dev/null"]
    result = subprocess.run([sys.executable, "-m", "mypy", *flags, str(examples)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr + "\n" + examples.read_text()
