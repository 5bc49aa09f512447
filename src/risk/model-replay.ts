import { type EngineExecutor } from '../engine/ops.js';
import { type CalculateRequest } from '../contract/schemas.js';
import { bootstraps } from './history/bootstrap-paths.js';
import { replayedEstimation } from './history/filtered-estimation.js';
import { type PreparedModel } from './model-setup.js';
import { type Session } from './deadline.js';

/**
 * The estimation a calculation's scenarios come from (api.md §16): for historical_filtered the
 * filtered rows or, over T > 1 days, `simulations` seeded bootstrap paths replayed as one-day rows
 * (`horizon` 1); the model's own otherwise.
 */
export function replayFor(
  req: Pick<CalculateRequest, 'method' | 'time_horizon' | 'simulations'>,
  model: PreparedModel,
  executor: EngineExecutor,
  parts: number,
  s: Pick<Session, 'signal' | 'deadline'>,
) {
  const bootstrap = bootstraps(req) ? { horizon: req.time_horizon, paths: req.simulations ?? 0, seed: model.opts.seed ?? 0 } : null;
  return replayedEstimation(model.est, model.opts.filter, model.opts.drift === 'zero', { executor, signal: s.signal, deadline: s.deadline, parts }, bootstrap);
}
