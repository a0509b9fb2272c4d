#!/bin/sh
# Regenerates the code made from Slipway's OpenAPI document (src/generated/*.ts, src/resources/*.ts)
# with scripts/generate.mjs and the pinned openapi-typescript (package-lock.json). Deterministic: the
# same document gives the same files, which the suite's no-drift test checks.
#   sh scripts/generate.sh BASE_URL|openapi.json [OUT_DIR]      e.g. sh scripts/generate.sh http://127.0.0.1:3000
set -eu
SOURCE=${1:?usage: scripts/generate.sh BASE_URL|openapi.json [OUT_DIR]}
case "$SOURCE" in http://*|https://*) ;; *) SOURCE=$(cd "$(dirname "$SOURCE")" && pwd)/$(basename "$SOURCE") ;; esac
OUT=${2:-}
if [ -n "$OUT" ]; then mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd); fi
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/openapi-typescript ]; then
  npm ci --no-audit --no-fund --ignore-scripts >&2
fi
exec node scripts/generate.mjs "$SOURCE" ${OUT:+"$OUT"}
