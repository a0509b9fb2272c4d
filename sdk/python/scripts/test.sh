#!/usr/bin/env bash
# Installs what the Python SDK needs (a venv in sdk/python/.venv from PyPI, pinned) and runs its
# pytest suite, which starts a live Slipway through sdk/testserver/start.ts (needs the repository's
# node_modules: run `npm ci` at the root first). Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
cd "$SDK_DIR"
"$VENV/bin/python" -m pytest -p no:cacheprovider "$@"
