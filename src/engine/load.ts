import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NativeEngine, nativeAvailable, nativeBuild } from './native-engine.js';
import { type Engine } from './ops.js';
import { ROOT } from './paths.js';
import { compileWasm, WasmEngine, type WasmVariant } from './wasm-engine.js';

export type EngineChoice = 'auto' | 'wasm' | 'native' | 'wasm-scalar';

/** What a worker needs to build its engine: picked and compiled once, in the main thread. */
export type EngineSource =
  | { kind: 'native' }
  | { kind: 'wasm'; variant: WasmVariant; module: WebAssembly.Module; version: string };

export function engineVersion(): string {
  const cargo = readFileSync(path.join(ROOT, 'engine/core/Cargo.toml'), 'utf8');
  return /^version\s*=\s*"([^"]+)"/m.exec(cargo)?.[1] ?? 'unknown';
}

export function resolveEngineSource(choice: EngineChoice): EngineSource {
  if (choice === 'native' || (choice === 'auto' && nativeAvailable())) {
    if (!nativeAvailable()) throw new Error('ENGINE=native but build/native/index.node is missing');
    return { kind: 'native' };
  }
  const variant: WasmVariant = choice === 'wasm-scalar' ? 'scalar' : 'simd';
  return { kind: 'wasm', variant, module: compileWasm(variant), version: engineVersion() };
}

/** The build's name as responses and metrics report it. */
export function buildName(source: EngineSource): string {
  if (source.kind === 'native') return nativeBuild();
  return source.variant === 'simd' ? 'wasm-simd128' : 'wasm-scalar';
}

export function instantiateEngine(source: EngineSource): Engine {
  if (source.kind === 'native') return new NativeEngine();
  return new WasmEngine(source.module, buildName(source), source.version);
}
