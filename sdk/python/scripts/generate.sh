#!/bin/sh
# Regenerates src/slipway/_generated/ with scripts/generate.py: models, sync and async resources, API
# version and error codes from BASE_URL/openapi.json (models by the pinned datamodel-code-generator), and
# the sync and async clients from scripts/templates/client.py.
# Deterministic: the same document gives the same bytes, which the no-drift test checks.
set -eu
if [ $# -ne 1 ]; then echo "usage: $0 BASE_URL" >&2; exit 2; fi
SDK_DIR="$(cd "$(dirname "$0")/.." && pwd)"
. "$SDK_DIR/scripts/venv.sh"
"$VENV/bin/python" "$SDK_DIR/scripts/generate.py" "$1"
echo "regenerated $SDK_DIR/src/slipway/_generated/"
