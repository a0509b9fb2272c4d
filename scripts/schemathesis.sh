#!/usr/bin/env bash
# Installs schemathesis (PyPI, pinned) into a Python venv of its own and, with arguments, runs it.
#
#   scripts/schemathesis.sh --install-only     # install (or check) and print the executable's path
#   scripts/schemathesis.sh run <schema> ...   # install if needed, then `schemathesis run ...`
#
# The venv lives in $SCHEMATHESIS_VENV (default: .tools/schemathesis-<version>, git-ignored), so it is
# made once per machine. Needs python3 with the venv module; fails loudly otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.32.5
VENV="${SCHEMATHESIS_VENV:-${TOOLS_DIR:-.tools}/schemathesis-${VERSION}}"
BIN="$VENV/bin/schemathesis"

if ! [ -x "$BIN" ] || ! "$BIN" --version 2>/dev/null | grep -q "$VERSION"; then
  command -v python3 >/dev/null 2>&1 || { echo "schemathesis.sh: python3 is needed (with its venv module) to install schemathesis $VERSION" >&2; exit 3; }
  echo "schemathesis.sh: installing schemathesis $VERSION into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV" || { echo "schemathesis.sh: python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2; exit 3; }
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$VERSION" >&2
  "$BIN" --version >&2
fi

if [ "${1:-}" = "--install-only" ]; then
  echo "$BIN"
  exit 0
fi
exec "$BIN" "$@"
