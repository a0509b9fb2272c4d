#!/bin/sh
# Regenerates types.gen.go, services.gen.go and api.gen.go from BASE_URL/openapi.json with the
# generator in internal/gen (oapi-codegen, pinned in go.mod, for the types). Deterministic: the
# no-drift test (generate_test.go) checks it.
set -eu
if [ $# -ne 1 ]; then echo "usage: $0 BASE_URL" >&2; exit 2; fi
cd "$(dirname "$0")/.."
exec go run ./internal/cmd/generate -spec "${1%/}/openapi.json" -out .
