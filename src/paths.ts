import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root, from dist/src/. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WASM_PATHS = {
  simd: path.join(ROOT, 'build/wasm/engine-simd.wasm'),
  scalar: path.join(ROOT, 'build/wasm/engine-scalar.wasm'),
  /** simd128 with the benchmark-only operations (cargo feature bench-ops); never served. */
  'simd-bench': path.join(ROOT, 'build/wasm/engine-simd-bench.wasm'),
} as const;
/** The service's version, from its package.json. */
export const SERVICE_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
export const NATIVE_PATH = path.join(ROOT, 'build/native/index.node');
/** Plain x86-64 build of the same addon: the benchmarks' like-for-like comparison with WASM. */
export const NATIVE_BASELINE_PATH = path.join(ROOT, 'build/native-baseline/index.node');
/** This machine's CPU build (as NATIVE_PATH) with the benchmark-only operations; never served. */
export const NATIVE_HOST_BENCH_PATH = path.join(ROOT, 'build/native-host-bench/index.node');
