import { type EngineInput, type OpCode } from '../engine/ops.js';
import { type EngineSource } from '../engine/load.js';

/** A task sent to an engine worker: one engine call. */
export interface EngineTask {
  op: OpCode;
  /** Moved to the worker where a part is its buffer's whole view (else cloned; shared memory posted as it is). */
  input: EngineInput;
  /** Engine.call's lead: a SharedArrayBuffer's view, shared with the worker, or else cloned; never transferred. */
  lead?: Float64Array;
  /** Engine.call's group sums: a SharedArrayBuffer's view, shared with the worker. */
  sums?: Float64Array;
  /** The answer made in shared memory (the main thread keeps it and hands it to later tasks). */
  shared?: true;
  /** absoluteNow() when the task was submitted, to measure its wait in the queue. */
  submittedAt: number;
}

/** What a worker is started with. */
export interface EngineWorkerData {
  source: EngineSource;
}
