#!/bin/sh
# Fetches the Go SDK's modules from the module proxy (go.sum pins them) and runs go vet and its
# tests; TestMain starts a live Slipway through sdk/testserver/start.ts (needs the repository's
# node_modules: run `npm ci` at the root first). Extra arguments go to go test.
set -eu
cd "$(dirname "$0")/.."
go mod download
go vet ./...
exec go test -count=1 "$@" ./...
