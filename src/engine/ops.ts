/** Operation codes of the engine's one entry point (engine/core/src/api.rs). */
export const Op = {
  estimate: 1,
  simulate: 2,
  finalize: 3,
  parametric: 4,
  run: 5,
  normals: 6,
} as const;
export type OpCode = (typeof Op)[keyof typeof Op];

/** Simulations per block: the unit of seeding and of work splitting (engine/core/src/spec.rs). */
export const BLOCK = 256;

/** The engine, in either build: one synchronous call per task over flat f64 buffers. */
export interface Engine {
  readonly build: string;
  readonly version: string;
  call(op: OpCode, input: Float64Array): Float64Array;
}

/** An engine call's result with where its time went. */
export interface EngineReply {
  output: Float64Array;
  queueMs: number;
  computeMs: number;
}

/** Runs engine operations somewhere: in this thread, or on a worker pool. */
export interface EngineExecutor {
  run(op: OpCode, input: Float64Array, signal?: AbortSignal): Promise<EngineReply>;
}

/** Wall-clock milliseconds comparable across worker threads. */
export function absoluteNow(): number {
  return performance.timeOrigin + performance.now();
}
