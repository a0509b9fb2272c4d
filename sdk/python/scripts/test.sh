#!/bin/sh
# Installs what the Python SDK needs (a venv in sdk/python/.venv from PyPI, pinned) and runs its
# pytest suite, which starts a live Slipway through sdk/testserver/start.ts (needs the repository's
# node_modules: run `npm ci` at the root first). Extra arguments go to pytest.
set -eu
SDK_DIR="$(cd "$(dirname "$0")/.." && pwd)"
. "$SDK_DIR/scripts/venv.sh"
cd "$SDK_DIR"
exec "$VENV/bin/python" -m pytest -p no:cacheprovider "$@"
