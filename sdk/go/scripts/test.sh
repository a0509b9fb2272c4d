#!/bin/sh
# Fetches the Go SDK's modules from the module proxy (go.sum pins them), verifies them, and runs
# go vet and its tests; TestMain starts a live Slipway through sdk/testserver/start.ts (needs the
# repository's node_modules: run `npm ci` at the root first). The tests include the no-drift check
# of the generated code, the shared conformance scenario, the module zip of the release tag, and
# the README's quick start run from a fresh module outside the repository. Extra arguments go to go test.
set -eu
cd "$(dirname "$0")/.."
go mod download
go mod verify
go vet ./...
exec go test -count=1 "$@" ./...
