import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root, from dist/src/engine/. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WASM_PATHS = {
  simd: path.join(ROOT, 'build/wasm/engine-simd.wasm'),
  scalar: path.join(ROOT, 'build/wasm/engine-scalar.wasm'),
} as const;
export const NATIVE_PATH = path.join(ROOT, 'build/native/index.node');
