#!/bin/sh
# Regenerates the /v1 types (src/generated/openapi.ts) from a running Slipway's OpenAPI document with
# the pinned openapi-typescript (package-lock.json). Deterministic: the same document gives the same file.
#   sh scripts/generate.sh BASE_URL [OUTPUT]      e.g. sh scripts/generate.sh http://127.0.0.1:3000
set -eu
BASE_URL=${1:?usage: scripts/generate.sh BASE_URL [OUTPUT]}
cd "$(dirname "$0")/.."
OUTPUT=${2:-src/generated/openapi.ts}
if [ ! -x node_modules/.bin/openapi-typescript ]; then
  npm ci --no-audit --no-fund >&2
fi
node_modules/.bin/openapi-typescript "${BASE_URL%/}/openapi.json" --default-non-nullable false --output "$OUTPUT" >&2
