#!/usr/bin/env bash
# Runs the Go tests of the FerretDB packages Slipway patches (tools/ferretdb/patches), in the patched
# source tree that `slipway db build-embedded` prepared (and builds first if needed). Fast packages only
# (about a minute): the SQLite backend and its metadata, the sjson encoding, the handler's common code,
# resource tracking.
#
#   scripts/ferretdb-go-test.sh            # go test -count=1 on those packages
#   scripts/ferretdb-go-test.sh -v -run X  # extra arguments go to `go test`
set -euo pipefail
cd "$(dirname "$0")/.."

NODE=node_modules/.bin/node
[ -x "$NODE" ] || NODE=node
SOURCE="$("$NODE" bin/slipway.js db build-embedded --json | "$NODE" -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s).source))')"
[ -d "$SOURCE" ] || { echo "ferretdb-go-test.sh: the patched source $SOURCE is missing; remove the cached binary in .tools/bin and run \`npx slipway db build-embedded\`" >&2; exit 3; }
echo "ferretdb-go-test.sh: go test in $SOURCE" >&2

cd "$SOURCE"
# The pinned go.sum verifies every module; no toolchain download.
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0
status=0
go test -count=1 "$@" \
  ./internal/backends/sqlite/... \
  ./internal/handler/sjson/ \
  ./internal/handler/common/ \
  ./internal/util/resource/ 2>&1 | grep -v -E '^\s+logging\.go:[0-9]+: ' || status=1
# Test databases a failing test keeps for debugging.
find internal/backends/sqlite -maxdepth 2 -type d -name 'test*' -newer go.mod -exec rm -rf {} + 2>/dev/null || true
exit "$status"
