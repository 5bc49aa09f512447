#!/usr/bin/env bash
# The engine core's tests compiled for 32-bit WebAssembly (wasm32-wasi, i.e. wasm32-wasip1 on
# current Rust) and run under Node's WASI: where `usize` is 32 bits, as in the WASM the service
# ships. A truncation or saturation that only wasm32 has fails here (run by scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
SAY_PREFIX=test
source scripts/lib.sh
detect_wasi_cargo
say "Rust: engine core tests for $WASI_TARGET, under Node's WASI"
cd engine/core
export CARGO_TARGET_DIR=target/wasi-tests
bins=$("${WASI_CARGO[@]}" test --release --target "$WASI_TARGET" --no-run --message-format=json 2>/dev/null |
  node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>{for(const l of s.split("\n")){if(!l.startsWith("{"))continue;const m=JSON.parse(l);if(m.reason==="compiler-artifact"&&m.profile&&m.profile.test&&m.executable)console.log(m.executable)}})')
[ -n "$bins" ] || { say "no test binaries were built for $WASI_TARGET"; exit 1; }
for bin in $bins; do
  say "  $(basename "$bin")"
  out=$(node --no-warnings ../../scripts/run-wasi-test.mjs "$bin" 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }
  grep -E '^test result' <<<"$out" >&2
done
