#!/usr/bin/env bash
# Everything `npm test` runs, after scripts/setup.sh has built the project.
set -euo pipefail
cd "$(dirname "$0")/.."
SAY_PREFIX=test
source scripts/lib.sh
detect_wasm_cargo

say "Rust: formatting and lints (cargo fmt, clippy -D warnings)"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
  (cd engine/core && cargo fmt --check)
else
  tool_missing rustfmt "formatting is not checked"
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --quiet --release -p risk-engine-native -- -D warnings
  (cd engine/core && CARGO_TARGET_DIR=target/clippy cargo clippy --quiet --all-targets --release -- -D warnings)
else
  tool_missing clippy "lints are not checked"
fi

say "Rust: engine core tests, on the toolchain that builds the WASM"
(cd engine/core && CARGO_TARGET_DIR=target/host-tests "${WASM_CARGO[@]}" test --release)
bash scripts/test-engine-wasm32.sh

say "TypeScript: eslint and prettier"
npx --no-install eslint --no-error-on-unmatched-pattern src test bench clients console
npx --no-install prettier --check --no-error-on-unmatched-pattern src test bench clients console

say "OpenAPI: the document the service serves, linted by Redocly (recommended rules, redocly.yaml)"
openapi_doc=$(mktemp --suffix=.json)
node dist/src/cli/openapi.js >"$openapi_doc"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly lint --config redocly.yaml --format=stylish "$openapi_doc"
rm -f "$openapi_doc"

say "replica tests and bench:check need real servers: redis-server and PostgreSQL (installed from apt when missing; the tests start their own on loopback ports)"
command -v redis-server >/dev/null || apt_install redis-server || true
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || apt_install postgresql || true
command -v redis-server >/dev/null || tool_missing redis-server "the replica tests fail and bench:check cannot measure the shared stores"
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || tool_missing PostgreSQL "the replica tests fail and bench:check cannot measure the shared stores"
say "the console test drives Debian's chromium headless (installed from apt when missing)"
command -v chromium >/dev/null || apt_install chromium || true
command -v chromium >/dev/null || tool_missing chromium "the console test fails"

# The tests first, then the benchmark floors: a noisy floor must not keep the tests from running.
# Both run whatever the other's outcome; the run fails if either failed.
say "tap: the service, against the real server"
log=$(mktemp)
tap_status=0
npx --no-install tap dist/test/{unit,engine,http,process,replicas}/*.test.js 2>&1 | tee "$log" || tap_status=$?
summary=$(grep -E '^# \{ total: [0-9]+' "$log" | tail -1)
pass=$(sed -nE 's/.*pass: ([0-9]+).*/\1/p' <<<"$summary")
fail=$(sed -nE 's/.*fail: ([0-9]+).*/\1/p' <<<"$summary")
rm -f "$log"

say "bench:check: quick benchmarks against bench/floors.json"
bench_status=0
node dist/bench/check.js || bench_status=$?

# The closing lines: the tests' count (the last "N passed, M failed" line, which CI reads), then
# bench:check's verdict, worded so that it never reads as a test count.
[ "$tap_status" = 0 ] || echo "tap exited $tap_status"
echo "tap: ${pass:-0} passed, ${fail:-0} failed"
if [ "$bench_status" = 0 ]; then echo "bench:check: every floor met"; else echo "bench:check: FAILED (exit $bench_status; its report is above)"; fi
[ "$tap_status" = 0 ] || exit "$tap_status"
exit "$bench_status"
