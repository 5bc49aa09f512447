// An executor in front of another that counts the operations it is asked and keeps their inputs,
// so a test can see what crossed to the workers (which parts, in which memory).
import { type AnswerMemory, type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../../src/engine/ops.js';

export class RecordingExecutor implements EngineExecutor {
  readonly ops = new Map<number, number>();
  readonly inputs: [OpCode, EngineInput][] = [];
  constructor(private readonly inner: EngineExecutor) {}

  run(op: OpCode, input: EngineInput, signal?: AbortSignal, lead?: Float64Array, answer?: AnswerMemory, sums?: Float64Array): Promise<EngineReply> {
    this.ops.set(op, (this.ops.get(op) ?? 0) + 1);
    this.inputs.push([op, input]);
    return this.inner.run(op, input, signal, lead, answer, sums);
  }
}
