import { createRequire } from 'node:module';
import { readAbi } from './abi-check.js';
import { joinedInput, sharedAnswer, type Engine, type EngineInput, type OpCode } from './ops.js';
import { NATIVE_BASELINE_PATH, NATIVE_HOST_BENCH_PATH, NATIVE_PATH } from '../paths.js';

interface NativeAddon {
  engineCall(op: number, input: Float64Array): Float64Array;
  engineCallLed(op: number, lead: Float64Array, input: Float64Array): Float64Array;
  engineCallLedSummed(op: number, lead: Float64Array, input: Float64Array, sums: Float64Array): Float64Array;
  engineCallParts(op: number, parts: Float64Array[]): Float64Array;
  engineAnswerLength(op: number, lead: Float64Array, input: Float64Array): number;
  engineCallLedInto(op: number, lead: Float64Array, input: Float64Array, out: Float64Array): boolean;
  engineBuild(): string;
}

/** Every function the binding calls on the addon. */
const ENTRY_POINTS = ['engineCall', 'engineCallLed', 'engineCallLedSummed', 'engineCallParts', 'engineAnswerLength', 'engineCallLedInto', 'engineBuild'] as const satisfies readonly (keyof NativeAddon)[];

/** The native addon: loading it checks its entry points and ABI and reads its version (throws if any fails). */
export class NativeEngine implements Engine {
  readonly build: string;
  readonly version: string;
  private readonly addon: NativeAddon;

  /** The plain x86-64 addon (benchmarks). */
  static baseline(): NativeEngine {
    return new NativeEngine(NATIVE_BASELINE_PATH);
  }

  /** This machine's CPU build with the benchmark-only operations (benchmarks). */
  static hostBench(): NativeEngine {
    return new NativeEngine(NATIVE_HOST_BENCH_PATH);
  }

  constructor(file = NATIVE_PATH) {
    this.addon = createRequire(import.meta.url)(file) as NativeAddon;
    // An addon built before an entry point existed speaks the same ABI constants: refused here,
    // at load, rather than failing the first call that needs it.
    const missing = ENTRY_POINTS.filter((name) => typeof this.addon[name] !== 'function');
    if (missing.length > 0) throw new Error(`native addon ${file} lacks ${missing.join(', ')}: rebuild it (scripts/setup.sh)`);
    this.build = this.addon.engineBuild();
    this.version = readAbi(this).version;
  }

  call(op: OpCode, input: EngineInput, lead?: Float64Array, sums?: Float64Array): Float64Array {
    // Parts are read where they lie (a merge's partials, an estimation's prices, a spec's model;
    // any other joined by the addon). With a lead they are joined here, on the worker.
    if (!lead && !(input instanceof Float64Array) && input.length > 1) return this.addon.engineCallParts(op, [...input]);
    if (lead && sums) return this.addon.engineCallLedSummed(op, lead, joinedInput(input), sums);
    // The lead is read where it lies (no copy), a SharedArrayBuffer's view included.
    return lead ? this.addon.engineCallLed(op, lead, joinedInput(input)) : this.addon.engineCall(op, joinedInput(input));
  }

  callShared(op: OpCode, parts: EngineInput, lead?: Float64Array): Float64Array {
    if (!lead) return sharedAnswer(this.call(op, parts));
    const input = joinedInput(parts);
    // An answer whose length is known up front (option columns: up to 10⁸ words) is written
    // straight into shared memory; any other is copied there.
    const words = this.addon.engineAnswerLength(op, lead, input);
    if (words >= 0) {
      const out = new Float64Array(new SharedArrayBuffer(words * 8));
      if (this.addon.engineCallLedInto(op, lead, input, out)) return out;
    }
    return sharedAnswer(this.call(op, input, lead));
  }
}

/** Whether this machine's native addon loads and speaks this binding's ABI. */
export function nativeAvailable(): boolean {
  try {
    new NativeEngine();
    return true;
  } catch {
    return false;
  }
}
