import { NativeEngine } from './native-engine.js';
import { type Engine } from './ops.js';
import { compileWasm, WasmEngine, type WasmVariant } from './wasm-engine.js';
import { warmUp } from './warm-up.js';

export type EngineChoice = 'auto' | 'wasm' | 'native' | 'wasm-scalar';

/** What a worker needs to build its engine: picked, checked and compiled once, in the main thread. */
export type EngineSource = { kind: 'native'; build: string; version: string } | { kind: 'wasm'; variant: WasmVariant; module: WebAssembly.Module; build: string; version: string };

function wasmSource(variant: WasmVariant): EngineSource {
  const module = compileWasm(variant);
  const engine = warmUp(new WasmEngine(module, wasmBuildName(variant)));
  return { kind: 'wasm', variant, module, build: engine.build, version: engine.version };
}

function wasmBuildName(variant: WasmVariant): string {
  return variant === 'simd' ? 'wasm-simd128' : 'wasm-scalar';
}

/**
 * Picks the engine by trying it: the native addon is loaded, its ABI checked and a warm-up call
 * run; if any of that fails (`auto`), WASM is used instead. `native` insists, `wasm*` never tries.
 */
export function resolveEngineSource(choice: EngineChoice): EngineSource {
  if (choice === 'native' || choice === 'auto') {
    try {
      const engine = warmUp(new NativeEngine());
      return { kind: 'native', build: engine.build, version: engine.version };
    } catch (e) {
      if (choice === 'native') throw new Error(`ENGINE=native but the native addon cannot be used: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return wasmSource(choice === 'wasm-scalar' ? 'scalar' : 'simd');
}

export function instantiateEngine(source: EngineSource): Engine {
  if (source.kind === 'native') return new NativeEngine();
  return new WasmEngine(source.module, source.build);
}
