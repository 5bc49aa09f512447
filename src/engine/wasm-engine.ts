import { readFileSync } from 'node:fs';
import { readAbi } from './abi-check.js';
import { type Engine, type EngineInput, type OpCode } from './ops.js';
import { WASM_PATHS } from '../paths.js';

export type WasmVariant = keyof typeof WASM_PATHS;

interface EngineExports {
  memory: WebAssembly.Memory;
  engine_alloc(len: number): number;
  engine_free(ptr: number, len: number): void;
  engine_call(op: number, ptr: number, len: number): number;
  engine_result_ptr(): number;
  engine_result_clear(): void;
}

/** Compiles the engine once; the Module is shared with workers, which only instantiate it. */
export function compileWasm(variant: WasmVariant = 'simd'): WebAssembly.Module {
  return new WebAssembly.Module(readFileSync(WASM_PATHS[variant]));
}

/** Bytes reserved in the engine's allocator at start-up so that early tasks do not grow memory. */
const PREGROW_BYTES = 64 * 1024 * 1024;

/**
 * A WASM memory never shrinks: after a task that grew it beyond this, the instance is replaced by a
 * fresh one and the old memory left to the collector, so one large task does not pin its peak
 * (a maximum batch: about 1 GB) in every worker it ran on.
 */
export const RELEASE_ABOVE_BYTES = 512 * 1024 * 1024;

export class WasmEngine implements Engine {
  readonly version: string;
  private exports: EngineExports;
  private heap: Float64Array;
  private inputPtr = 0;
  private inputCapacity = 0;

  constructor(
    private readonly module: WebAssembly.Module,
    readonly build: string,
    private readonly releaseAboveBytes = RELEASE_ABOVE_BYTES,
  ) {
    this.exports = WasmEngine.instantiate(module);
    this.heap = new Float64Array(this.exports.memory.buffer);
    this.version = readAbi(this).version;
  }

  private static instantiate(module: WebAssembly.Module): EngineExports {
    const exports = new WebAssembly.Instance(module, {}).exports as unknown as EngineExports;
    const pregrow = exports.engine_alloc(PREGROW_BYTES / 8);
    exports.engine_free(pregrow, PREGROW_BYTES / 8);
    return exports;
  }

  /** Bytes of the instance's memory now. */
  get memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
  }

  call(op: OpCode, input: EngineInput, lead?: Float64Array): Float64Array {
    return this.run(op, input, lead, (words) => new Float64Array(words));
  }

  callShared(op: OpCode, input: EngineInput, lead?: Float64Array): Float64Array {
    return this.run(op, input, lead, (words) => new Float64Array(new SharedArrayBuffer(words * 8)));
  }

  /** One call, its answer copied out of linear memory into `make`'s buffer of its length. */
  private run(op: OpCode, input: EngineInput, lead: Float64Array | undefined, make: (words: number) => Float64Array): Float64Array {
    const e = this.exports;
    // Linear memory is the engine's only view: a lead is copied in ahead of the input, and an
    // input's parts one after another (never joined outside it first).
    const parts = input instanceof Float64Array ? [input] : input;
    const length = parts.reduce((a, p) => a + p.length, 0) + (lead ? 1 + lead.length : 0);
    if (length > this.inputCapacity) {
      if (this.inputCapacity > 0) e.engine_free(this.inputPtr, this.inputCapacity);
      this.inputCapacity = Math.max(length, 4096);
      this.inputPtr = e.engine_alloc(this.inputCapacity);
    }
    this.refreshHeap();
    let write = this.inputPtr / 8;
    if (lead) {
      this.heap[write] = lead.length;
      this.heap.set(lead, write + 1);
      write += 1 + lead.length;
    }
    for (const p of parts) {
      this.heap.set(p, write);
      write += p.length;
    }
    const len = e.engine_call(op, this.inputPtr, length);
    this.refreshHeap(); // the call may have grown (and so detached) memory
    const at = e.engine_result_ptr() / 8;
    const out = make(len);
    out.set(this.heap.subarray(at, at + len));
    e.engine_result_clear();
    if (this.memoryBytes > this.releaseAboveBytes) this.renew();
    return out;
  }

  /** A fresh instance of the same module: the engine keeps no state between calls. */
  private renew(): void {
    this.exports = WasmEngine.instantiate(this.module);
    this.heap = new Float64Array(this.exports.memory.buffer);
    this.inputPtr = 0;
    this.inputCapacity = 0;
  }

  private refreshHeap(): void {
    if (this.heap.buffer !== this.exports.memory.buffer) {
      this.heap = new Float64Array(this.exports.memory.buffer);
    }
  }
}
