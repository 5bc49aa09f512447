#!/usr/bin/env bash
# openapi-python-client (pinned) in a venv of its own under build/, installed from PyPI on first use;
# prints the venv's bin directory. Used by test/http/generated-clients.test.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.29.1
venv=build/venv-clients
if [ ! -x "$venv/bin/openapi-python-client" ] || ! "$venv/bin/openapi-python-client" --version 2>/dev/null | grep -q "$VERSION"; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$VERSION" >&2
fi
echo "$PWD/$venv/bin"
