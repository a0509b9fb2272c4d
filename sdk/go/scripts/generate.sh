#!/bin/sh
# Regenerates types.gen.go from BASE_URL/openapi.json with the oapi-codegen pinned in go.mod (a
# `tool` directive) and the options in oapi-codegen.yaml. Deterministic: the no-drift test checks it.
set -eu
if [ $# -ne 1 ]; then echo "usage: $0 BASE_URL" >&2; exit 2; fi
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
curl -fsS "${1%/}/openapi.json" -o "$tmp/openapi.json"
go tool oapi-codegen -config oapi-codegen.yaml -o types.gen.go "$tmp/openapi.json"
echo "regenerated $(pwd)/types.gen.go"
