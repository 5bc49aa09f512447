import { type AnswerMemory, type Engine, type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from './ops.js';

/** Runs engine calls in the calling thread (tests, benchmarks, tools). */
export class DirectExecutor implements EngineExecutor {
  constructor(readonly engine: Engine) {}

  run(op: OpCode, input: EngineInput, _signal?: AbortSignal, lead?: Float64Array, answer: AnswerMemory = 'own', sums?: Float64Array): Promise<EngineReply> {
    const start = performance.now();
    const output = answer === 'shared' ? this.engine.callShared(op, input, lead) : this.engine.call(op, input, lead, sums);
    return Promise.resolve({ output, queueMs: 0, computeMs: performance.now() - start });
  }
}
