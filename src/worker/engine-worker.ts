import { workerData } from 'node:worker_threads';
import { instantiateEngine } from '../engine/load.js';
import { absoluteNow, type EngineReply } from '../engine/ops.js';
import { warmUp } from '../engine/warm-up.js';
import { injectEngineFault } from '../testing/fault-hooks.js';
import { type EngineTask, type EngineWorkerData } from './messages.js';
import { movedReply } from './moved-reply.js';

const engine = warmUp(instantiateEngine((workerData as EngineWorkerData).source));

/** Runs one engine call and says how long it waited and ran. */
export default function runTask(task: EngineTask): EngineReply {
  const start = absoluteNow();
  injectEngineFault();
  const output = task.shared ? engine.callShared(task.op, task.input, task.lead) : engine.call(task.op, task.input, task.lead, task.sums);
  return movedReply({ output, queueMs: start - task.submittedAt, computeMs: absoluteNow() - start });
}
