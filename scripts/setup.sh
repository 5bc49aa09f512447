#!/usr/bin/env bash
# Idempotent set-up used by `npm start`, `npm test` and CI: toolchains, npm packages, the WASM
# engine (simd128 and scalar), the native addon and the TypeScript build. Skips what is up to date
# and says what it does on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >&2
}
# Content hash of the given paths: a build step reruns only when its inputs change.
fingerprint() {
  local existing=() p
  for p in "$@"; do [ -e "$p" ] && existing+=("$p"); done
  find "${existing[@]}" -type f ! -path '*/target/*' -print0 | sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16
}
stale() { [ ! -f "$1" ] || [ "$(cat "$1")" != "$2" ]; }

# --- WASM toolchain: rustup's when it has (or can add) the target, else Debian's rustc 1.63 ---
WASM_CARGO=()
if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  WASM_CARGO=(cargo)
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/wasm32-unknown-unknown ] && [ -x /usr/bin/lld ]; then
  WASM_CARGO=(env RUSTC=/usr/bin/rustc /usr/bin/cargo)
elif command -v rustup >/dev/null && timeout 120 rustup target add wasm32-unknown-unknown >&2 2>&1; then
  WASM_CARGO=(cargo)
else
  apt_install rustc cargo libstd-rust-dev-wasm32 lld
  WASM_CARGO=(env RUSTC=/usr/bin/rustc /usr/bin/cargo)
fi
command -v wasm-opt >/dev/null || apt_install binaryen

# --- npm packages ---
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund >&2
fi

mkdir -p build/wasm build/native

# --- WASM engine: simd128 (the service's) and scalar (the benchmarks' baseline) ---
core_fp=$(fingerprint engine/core/src engine/core/Cargo.toml)
for variant in simd scalar; do
  out=build/wasm/engine-$variant.wasm
  if stale "$out.stamp" "$core_fp" || [ ! -f "$out" ]; then
    say "building $out"
    flags="-C target-feature=+simd128"
    [ "$variant" = scalar ] && flags="-C target-feature=-simd128"
    (cd engine/core && RUSTFLAGS="$flags" CARGO_TARGET_DIR="target/$variant" \
      "${WASM_CARGO[@]}" build --quiet --release --lib --target wasm32-unknown-unknown >&2)
    wasm-opt -O3 --enable-simd --enable-bulk-memory --strip-debug --strip-producers \
      "engine/core/target/$variant/wasm32-unknown-unknown/release/risk_engine_core.wasm" -o "$out"
    echo "$core_fp" > "$out.stamp"
  fi
done

# --- Native addon (optional: the service falls back to WASM without it) ---
native_fp=$(fingerprint engine/core/src engine/core/Cargo.toml engine/native Cargo.toml)
if stale build/native/stamp "$native_fp" || [ ! -f build/native/index.node ]; then
  if command -v cargo >/dev/null && cargo --version >/dev/null 2>&1; then
    say "building the native addon"
    if npx --no-install napi build --release --manifest-path engine/native/Cargo.toml \
      --output-dir build/native --package-json-path package.json >&2; then
      echo "$native_fp" > build/native/stamp
    else
      say "WARNING: native addon build failed; the service will use WASM"
    fi
  else
    say "no cargo for the native addon; the service will use WASM"
  fi
fi

# --- TypeScript ---
ts_fp=$(fingerprint src test bench tsconfig.json package-lock.json)
if stale dist/.stamp "$ts_fp" || [ ! -d dist ]; then
  say "compiling TypeScript"
  npx --no-install tsc -p tsconfig.json
  echo "$ts_fp" > dist/.stamp
fi
