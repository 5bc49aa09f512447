import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { type Engine, type OpCode } from './ops.js';
import { NATIVE_BASELINE_PATH, NATIVE_PATH } from './paths.js';

interface NativeAddon {
  engineCall(op: number, input: Float64Array): Float64Array;
  engineVersion(): string;
  engineBuild(): string;
}

export function nativeAvailable(): boolean {
  return existsSync(NATIVE_PATH);
}

function loadAddon(file = NATIVE_PATH): NativeAddon {
  return createRequire(import.meta.url)(file) as NativeAddon;
}

/** The instruction set the addon was built for. */
export function nativeBuild(): string {
  return loadAddon().engineBuild();
}

export class NativeEngine implements Engine {
  readonly build: string;
  readonly version: string;
  private readonly addon: NativeAddon;

  /** The plain x86-64 addon (benchmarks). */
  static baseline(): NativeEngine {
    return new NativeEngine(NATIVE_BASELINE_PATH);
  }

  constructor(file = NATIVE_PATH) {
    this.addon = loadAddon(file);
    this.build = this.addon.engineBuild();
    this.version = this.addon.engineVersion();
  }

  call(op: OpCode, input: Float64Array): Float64Array {
    return this.addon.engineCall(op, input);
  }
}
