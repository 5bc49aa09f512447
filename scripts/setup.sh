#!/usr/bin/env bash
# Idempotent set-up used by `npm start`, `npm test` and CI: toolchains, npm packages, the WASM
# engine (simd128 and scalar), the native addon and the TypeScript build. Skips what is up to date
# and says what it does on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
detect_wasm_cargo
command -v wasm-opt >/dev/null || apt_install binaryen

# --- npm packages ---
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund >&2
fi

mkdir -p build/wasm build/native

# --- WASM engine: simd128 (the service's), scalar (the benchmarks' baseline) and simd128 with the
# benchmark-only operations (cargo feature bench-ops; never loaded by the service) ---
core_fp=$(fingerprint engine/core/src engine/core/Cargo.toml)
for variant in simd scalar simd-bench; do
  out=build/wasm/engine-$variant.wasm
  if stale "$out.stamp" "$core_fp" || [ ! -f "$out" ]; then
    say "building $out"
    flags="-C target-feature=+simd128"
    [ "$variant" = scalar ] && flags="-C target-feature=-simd128"
    features=()
    [ "$variant" = simd-bench ] && features=(--features bench-ops)
    (cd engine/core && RUSTFLAGS="$flags" CARGO_TARGET_DIR="target/$variant" \
      "${WASM_CARGO[@]}" build --quiet --release --lib --target wasm32-unknown-unknown "${features[@]}" >&2)
    wasm-opt -O3 --enable-simd --enable-bulk-memory --strip-debug --strip-producers \
      "engine/core/target/$variant/wasm32-unknown-unknown/release/risk_engine_core.wasm" -o "$out"
    echo "$core_fp" > "$out.stamp"
  fi
done

# --- Native addons (optional: the service falls back to WASM without them) ---
# build/native: for this machine's CPU (what the service loads; Rust never fuses multiply-adds on
# its own and the engine has its own exp/ln, so results stay bit-identical to WASM).
# build/native-baseline: plain x86-64, the like-for-like comparison with WASM in the benchmarks.
# On CPUs LLVM tunes to prefer 256-bit vectors (Intel's AVX-512 server parts), the pricer's 8-lane
# groups run as two halves; -prefer-256-bit lets them fill one 512-bit register (25 % faster option
# revaluation, measured). It is an x86 tuning flag, not an instruction set, so the bits do not
# change; rustc warns that it is unstable, so it is added only on x86-64 and where a probe
# compilation with it succeeds.
native_fp=$(fingerprint engine/core/src engine/core/Cargo.toml engine/native Cargo.toml)
HOST_NATIVE="-C target-cpu=native"
probe_dir=$(mktemp -d)
if [ "$(uname -m)" = x86_64 ] && command -v rustc >/dev/null &&
  rustc $HOST_NATIVE -C target-feature=-prefer-256-bit --crate-type lib --emit=metadata \
    --out-dir "$probe_dir" - </dev/null 2>/dev/null; then
  HOST_NATIVE="$HOST_NATIVE -C target-feature=-prefer-256-bit"
fi
rm -rf "$probe_dir"
build_native() { # $1 = output dir, $2 = RUSTFLAGS, $3… = extra napi/cargo arguments
  local stamp="$native_fp ${2:-baseline}"
  if stale "$1/stamp" "$stamp" || [ ! -f "$1/index.node" ]; then
    say "building the native addon into $1 (${2:-baseline})"
    mkdir -p "$1"
    if RUSTFLAGS="$2" CARGO_TARGET_DIR="$PWD/target/$(basename "$1")" npx --no-install napi build --release --cargo-cwd engine/native "${@:3}" "$1" >&2; then
      echo "$stamp" > "$1/stamp"
    else
      say "WARNING: native addon build failed; the service will use WASM"
    fi
  fi
}
if command -v cargo >/dev/null && cargo --version >/dev/null 2>&1; then
  build_native build/native "${NATIVE_RUSTFLAGS-$HOST_NATIVE}"
  # The baseline is a benchmark build: it carries the benchmark-only operations (bench-ops).
  build_native build/native-baseline "" --features bench-ops
  # The service's build with the benchmark-only operations: its dense kernels against its own
  # no-FMA peak (bench/lib/kernel-bench.ts). Never loaded by the service.
  build_native build/native-host-bench "${NATIVE_RUSTFLAGS-$HOST_NATIVE}" --features bench-ops
else
  say "no cargo for the native addon; the service will use WASM"
fi

# --- TypeScript ---
ts_fp=$(fingerprint src test bench tsconfig.json package-lock.json)
if stale dist/.stamp "$ts_fp" || [ ! -d dist ]; then
  say "compiling TypeScript"
  npx --no-install tsc -p tsconfig.json
  echo "$ts_fp" > dist/.stamp
fi
