import { workerData } from 'node:worker_threads';
import { instantiateEngine } from '../engine/load.js';
import { absoluteNow, Op, type EngineReply } from '../engine/ops.js';
import { encodeParametric } from '../engine/codec.js';
import { injectFault } from './fault-injection.js';
import { type EngineTask, type EngineWorkerData } from './messages.js';

const engine = instantiateEngine((workerData as EngineWorkerData).source);

// One warm-up call: the first call in a fresh worker is about twice as slow (tier-up).
engine.call(
  Op.parametric,
  encodeParametric({
    portfolioValue: 1,
    horizon: 1,
    confidence: 0.99,
    weights: new Float64Array([1]),
    mean: new Float64Array([0]),
    covariance: new Float64Array([1e-4]),
  }),
);

/** Runs one engine call and says how long it waited and ran. */
export default function runTask(task: EngineTask): EngineReply {
  const start = absoluteNow();
  injectFault();
  const output = engine.call(task.op, task.input);
  return { output, queueMs: start - task.submittedAt, computeMs: absoluteNow() - start };
}
