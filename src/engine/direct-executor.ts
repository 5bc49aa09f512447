import { type Engine, type EngineExecutor, type OpCode } from './ops.js';

/** Runs engine calls in the calling thread (tests, benchmarks, tools). */
export class DirectExecutor implements EngineExecutor {
  constructor(readonly engine: Engine) {}

  run(op: OpCode, input: Float64Array): Promise<Float64Array> {
    return Promise.resolve(this.engine.call(op, input));
  }
}
