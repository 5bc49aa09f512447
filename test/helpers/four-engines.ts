// The four engine builds a differential test compares: WASM simd128, WASM scalar, native for this
// CPU and native x86-64, in that order.
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { type Engine } from '../../src/engine/ops.js';

export function fourEngines(): [Engine, Engine, Engine, Engine] {
  return [
    instantiateEngine(resolveEngineSource('wasm')),
    instantiateEngine(resolveEngineSource('wasm-scalar')),
    instantiateEngine(resolveEngineSource('native')),
    NativeEngine.baseline(),
  ];
}
