# Sourced (with SDK_DIR set) by generate.sh and test.sh: creates sdk/python/.venv from PyPI with the
# pinned tools (requirements-dev.txt) and the SDK itself (editable), once; again only when those
# files change. POSIX sh.
VENV="$SDK_DIR/.venv"
PYTHON_BIN="${PYTHON:-python3}"
stamp="$(cat "$SDK_DIR/requirements-dev.txt" "$SDK_DIR/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$stamp" ]; then
  "$PYTHON_BIN" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$SDK_DIR/requirements-dev.txt"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$SDK_DIR"
  echo "$stamp" > "$VENV/.installed"
fi
