#!/usr/bin/env bash
# schemathesis (PyPI) against the service's own /api/v1/openapi.json: every operation, a valid
# key, limits raised; no 5xx and every response matching its documented schema.
# The "coverage" phase is skipped: it probes unknown HTTP methods (e.g. QUERY), which uWebSockets'
# parser answers by closing the connection.
# Without schemathesis (and unable to install it) the run fails in CI and is skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
SAY_PREFIX=schemathesis
source scripts/lib.sh
# pip's user scripts, and a venv of our own where pip may not install (an externally managed Python).
venv="${XDG_CACHE_HOME:-$HOME/.cache}/risk-service/schemathesis-venv"
export PATH="$HOME/.local/bin:$venv/bin:$PATH"
if ! command -v schemathesis >/dev/null; then
  say "installing schemathesis (pip)"
  python3 -m pip install --quiet schemathesis >&2 ||
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet schemathesis >&2; } || true
fi
if ! command -v schemathesis >/dev/null; then
  tool_missing schemathesis "the OpenAPI document is not fuzzed against the service (pip install schemathesis failed)"
  exit 0
fi
dir=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
DATA_DIR="$dir/data" SECRET_FILE="$dir/secret" PORT=0 HOST=127.0.0.1 LOG_LEVEL=info \
  RATE_LIMIT_CALCULATE_PER_MIN=1000000 RATE_LIMIT_BATCH_PER_MIN=1000000 RATE_LIMIT_UPLOAD_PER_MIN=1000000 AUTH_FAILURES_PER_MIN=1000000 \
  MAX_SIMULATIONS=200000 node dist/src/main.js > "$dir/out.log" 2>&1 &
pid=$!
# Until the service listens (it calibrates its cost model first): a generous deadline, not a speed.
for _ in $(seq 1200); do
  grep -q '"msg":"listening"' "$dir/out.log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
port=$(grep -o '"port":[0-9]*' "$dir/out.log" | head -1 | cut -d: -f2)
[ -n "$port" ] || { say "ERROR: the service did not start:"; cat "$dir/out.log" >&2; exit 1; }
# The first key is not in the output (not a terminal): it is in the 0600 file beside the secret,
# named by the key's id (the only one in this fresh directory).
key=$(cat "$dir"/first-api-key-*)
curl -s -H "X-API-Key: $key" -F file=@test/fixtures/prices_wide_sample.csv "http://127.0.0.1:$port/api/v1/risk/datasets/upload" > /dev/null
run() {
  schemathesis --config-file test/stress/schemathesis.toml run "http://127.0.0.1:$port/api/v1/openapi.json" \
    -H "X-API-Key: $key" --checks all --exclude-checks positive_data_acceptance --phases examples,fuzzing,stateful -n "${SCHEMATHESIS_EXAMPLES:-50}" \
    --request-timeout 60 --seed 1 "$@"
}
# The upload declares a header parameter (Idempotency-Key), so negative-mode fuzzing of it adds
# headers whose names hold '.' or '~' (valid tokens), on which uWebSockets' parser closes the
# connection before any handler runs; the upload is fuzzed with schema-valid headers only.
run --exclude-operation-id uploadDataset
run --include-operation-id uploadDataset --mode positive
