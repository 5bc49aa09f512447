#!/usr/bin/env bash
# cargo fuzz on the engine's flat ABI (engine/core/fuzz): every operation with arbitrary input must
# answer without panicking, and a success must hold only finite numbers. cargo-fuzz wants nightly;
# here it runs on stable with RUSTC_BOOTSTRAP=1 and no sanitizer (the engine core has no unsafe
# outside the WASM ABI, which the fuzz target does not use). FUZZ_SECONDS (default 60).
set -euo pipefail
cd "$(dirname "$0")/../engine/core"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --quiet || { echo "fuzz: cannot install cargo-fuzz; skipped"; exit 0; }
fi
RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none api_call -- \
  -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 -print_final_stats=1 2>&1 | tail -12
