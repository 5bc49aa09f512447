# syntax=docker/dockerfile:1
# Portfolio Risk Service image. The build stage runs scripts/setup.sh — the very script `npm start`,
# `npm test` and CI run — so the image is built by the same steps CI exercises on every run.

# The base images are arguments: public Node images by default; `npm run test:stress` passes a local
# one made from Debian packages and the npm registry's Node (scripts/container-base.sh) where no
# registry serves base images. Debian 13 and Node 24 LTS: the uWebSockets.js build with Node 22/24
# binaries needs glibc 2.38, which Debian 12 does not have (README, "Runtime").
ARG BUILD_BASE=node:24-trixie
ARG RUNTIME_BASE=node:24-trixie-slim

# ---- build: WASM engine (simd128 + scalar), native addon, TypeScript ----
FROM ${BUILD_BASE} AS build
# rustup's stable toolchain for the native addon (napi-rs needs a recent Rust); setup.sh adds the
# wasm32 target to it, or falls back to Debian's rustc + libstd-rust-dev-wasm32 from apt. rustup-init
# for this machine's architecture (x86_64, aarch64), straight from static.rust-lang.org.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl ca-certificates build-essential python3 git \
 && curl -sSf -o /tmp/rustup-init "https://static.rust-lang.org/rustup/dist/$(uname -m)-unknown-linux-gnu/rustup-init" \
 && chmod +x /tmp/rustup-init && /tmp/rustup-init -y --profile minimal --default-toolchain stable && rm /tmp/rustup-init \
 && rm -rf /var/lib/apt/lists/*
# The image runs on CPUs other than the builder's: a portable addon, not -C target-cpu=native.
ENV PATH=/root/.cargo/bin:$PATH \
    NATIVE_RUSTFLAGS=""
WORKDIR /app
COPY . .
RUN bash scripts/setup.sh \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf dist/test dist/bench

# ---- runtime: Node, the built artefacts, a non-root user ----
FROM ${RUNTIME_BASE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/var/lib/risk/data \
    SECRET_FILE=/var/lib/risk/.secrets/api-key-hmac
RUN groupadd --system risk && useradd --system --gid risk --home-dir /app --shell /usr/sbin/nologin risk \
 && mkdir -p /var/lib/risk && chown risk:risk /var/lib/risk
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/build ./build
COPY --from=build --chown=root:root /app/console ./console
USER risk
EXPOSE 8080
VOLUME ["/var/lib/risk"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains in-flight work (up to 25 s) and exits 0: give it the time.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
