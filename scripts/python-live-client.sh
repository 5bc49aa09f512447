#!/usr/bin/env bash
# The `websockets` package (pinned) in a venv of its own under build/, installed from PyPI on first use,
# for clients/python/live_risk.py; prints the venv's bin directory. Used by test/http/python-live-client.test.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=15.0.1
venv=build/venv-live
if ! "$venv/bin/python" -c "import websockets, sys; sys.exit(websockets.__version__ != '$VERSION')" 2>/dev/null; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "websockets==$VERSION" >&2
fi
echo "$PWD/$venv/bin"
