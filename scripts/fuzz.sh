#!/usr/bin/env bash
# cargo fuzz on the engine's flat ABI (engine/core/fuzz): every operation with arbitrary input must
# answer without panicking or exhausting memory, and a success must hold only finite numbers.
# cargo-fuzz wants nightly; here it runs on stable with RUSTC_BOOTSTRAP=1 and no sanitizer (the
# engine core has no unsafe outside the WASM ABI). CI runs a fixed seed and count, so a run that
# ends within FUZZ_SECONDS (600) of wall time is repeatable; a slower machine stops there, after
# fewer inputs, rather than overrun CI. FUZZ_RUNS and FUZZ_SEED change them (FUZZ_SEED=0: a
# random seed). The time is checked between inputs; a single input running past libFuzzer's own
# per-input timeout (20 minutes) fails the run as a hang.
# Without cargo-fuzz (and unable to install it) the run fails in CI and is skipped elsewhere.
set -euo pipefail
SAY_PREFIX=fuzz
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../engine/core"
if ! cargo fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz"
  if ! cargo install cargo-fuzz --locked --quiet; then
    tool_missing cargo-fuzz "the engine's ABI is not fuzzed (cargo install cargo-fuzz failed)"
    exit 0
  fi
fi
RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none api_call -- \
  -seed="${FUZZ_SEED:-1}" -runs="${FUZZ_RUNS:-1000000}" -max_total_time="${FUZZ_SECONDS:-600}" -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 2>&1 |
  grep -vE '^#[0-9]+ ' | tail -30
