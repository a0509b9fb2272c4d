#!/bin/sh
# Installs what the TypeScript SDK needs (idempotently), typechecks and builds it, and runs its vitest
# suite, which starts a live Slipway on FerretDB itself (sdk/testserver, see test/support/globalSetup.ts):
# among others the no-drift check of the generated code, the shared conformance scenario, and a fresh
# directory outside the repository that installs the package from a checkout and from the `npm pack`
# tarball as the README says (with SDK_ARTIFACTS_DIR set, that tarball is kept there: CI's release artifact).
#   [SDK_ARTIFACTS_DIR=dir] sh sdk/typescript/scripts/test.sh [vitest args…]
set -eu
cd "$(dirname "$0")/.."
ROOT=$(cd ../.. && pwd)
# The harness runs the server from the repository with the repository's Node 24.
if [ ! -x "$ROOT/node_modules/.bin/node" ]; then
  (cd "$ROOT" && npm ci --no-audit --no-fund)
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent typecheck
npm run --silent build
exec node_modules/.bin/vitest run "$@"
