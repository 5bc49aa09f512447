#!/usr/bin/env bash
# `npm run test:stress` (also run by .ci/run): load tests and schemathesis against the real service,
# and cargo fuzz on the engine's ABI.
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install tap --disable-coverage dist/test/stress/*.test.js
bash scripts/schemathesis.sh
bash scripts/fuzz.sh
