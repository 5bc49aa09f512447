#!/usr/bin/env bash
# Helpers sourced by setup.sh and test.sh.
say() { printf '[%s] %s\n' "${SAY_PREFIX:-setup}" "$*" >&2; }
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

# In CI (CI=true or 1, as .ci/run sets it) a check that cannot run for want of a tool fails the run:
# CI must not pass by skipping. Elsewhere it is a warning and the run goes on.
in_ci() { [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; }
tool_missing() { # tool_missing TOOL CONSEQUENCE
  if in_ci; then
    say "ERROR: $1 is missing, so $2; CI requires it"
    exit 1
  fi
  say "WARNING: $1 is missing, so $2"
}


# WASM_CARGO: a cargo that builds wasm32-unknown-unknown. rustup's toolchain when it has (or can
# add) the target; else Debian's rustc 1.63 + cargo 1.65, from apt when missing.
detect_wasm_cargo() {
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
}

# WASI_CARGO and WASI_TARGET: a cargo that builds the engine's tests for 32-bit WASI, to run them
# under Node. rustup's wasm32-wasip1 when it has (or can add) it; else Debian's wasm32-wasi.
detect_wasi_cargo() {
  if command -v rustup >/dev/null && { rustup target list --installed 2>/dev/null | grep -q '^wasm32-wasip1$' ||
    timeout 120 rustup target add wasm32-wasip1 >&2 2>&1; }; then
    WASI_CARGO=(cargo) WASI_TARGET=wasm32-wasip1
  else
    [ -d /usr/lib/rustlib/wasm32-wasi ] && [ -x /usr/bin/lld ] || apt_install rustc cargo libstd-rust-dev-wasm32 lld
    WASI_CARGO=(env RUSTC=/usr/bin/rustc /usr/bin/cargo) WASI_TARGET=wasm32-wasi
  fi
}
