import { type ABI } from './abi.js';

/** An operation code of the engine's one entry point: one of the ABI's OP_* constants. */
export type OpCode = (typeof ABI)[Extract<keyof typeof ABI, `OP_${string}`>];

/**
 * A call's input: one buffer, or consecutive parts read as if joined (OP_FINALIZE's count and then
 * the tasks' partials as they came back — OP_FINALIZE_PART's likewise, OP_FINALIZE_SPLIT's after
 * the part summaries — an estimation's header and prices, a spec's head and its shared model),
 * which the native build reads where they lie and the WASM build copies into its memory one after
 * another: the main thread joins none of them.
 */
export type EngineInput = Float64Array | readonly Float64Array[];

/** `input` as one buffer (itself, or its parts joined). */
export function joinedInput(input: EngineInput): Float64Array {
  if (input instanceof Float64Array) return input;
  if (input.length === 1) return input[0]!;
  const out = new Float64Array(input.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of input) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The engine, in either build: one synchronous call per task over flat f64 buffers. */
export interface Engine {
  readonly build: string;
  readonly version: string;
  /**
   * `lead`, when given, is the input's first part: the call reads [lead.length, …lead, …input].
   * A host passes a large buffer shared between tasks (a live book's kept scenarios) this way
   * instead of copying it into every task's input. `sums`, with a lead, is memory shared between
   * threads that a live book keeps for one batch of its kept scenarios (`groupSumsWords` long,
   * priced one call at a time): OP_SIMULATE_KEPT keeps its books' group sums there between calls
   * and sums again only the groups whose exposures moved. The answer is the same whatever it holds;
   * the WASM build does not use it.
   */
  call(op: OpCode, input: EngineInput, lead?: Float64Array, sums?: Float64Array): Float64Array;
  /**
   * `call`, its answer in memory shared between threads (a SharedArrayBuffer's view): what a host
   * keeps and hands to later tasks in place, so no thread copies it again.
   */
  callShared(op: OpCode, input: EngineInput, lead?: Float64Array): Float64Array;
}

/** Where a task's answer is made: the engine's own buffer (moved to the caller) or shared memory. */
export type AnswerMemory = 'own' | 'shared';

/** `answer` in shared memory: itself when it already is, else a copy. */
export function sharedAnswer(answer: Float64Array): Float64Array {
  if (answer.buffer instanceof SharedArrayBuffer) return answer;
  const shared = new Float64Array(new SharedArrayBuffer(answer.byteLength));
  shared.set(answer);
  return shared;
}

/** An engine call's result with where its time went. */
export interface EngineReply {
  output: Float64Array;
  queueMs: number;
  computeMs: number;
}

/** Runs engine operations somewhere: in this thread, or on a worker pool. */
export interface EngineExecutor {
  /**
   * `lead` as Engine.call takes it: shared with the worker (a SharedArrayBuffer's view) or cloned,
   * never transferred; `answer` 'shared': the output made in shared memory where the task runs;
   * `sums` as Engine.call takes it (shared with the worker).
   */
  run(op: OpCode, input: EngineInput, signal?: AbortSignal, lead?: Float64Array, answer?: AnswerMemory, sums?: Float64Array): Promise<EngineReply>;
}

/** An executor refused a task: its queue is full, or it is closing. Nothing was run. */
export class ExecutorBusyError extends Error {}

/** Wall-clock milliseconds comparable across worker threads. */
export function absoluteNow(): number {
  return performance.timeOrigin + performance.now();
}
