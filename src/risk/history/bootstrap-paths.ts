import { ABI } from '../../engine/abi.js';
import { decodeBootstrap, encodeBootstrap, type BootstrapModel } from '../../engine/bootstrap-codec.js';
import { EngineFailure } from '../../engine/codec.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { MONTE_CARLO, type CalculateRequest } from '../../contract/schemas.js';

/** Filtered history over T > 1 days draws bootstrap paths (api.md §16); T = 1 replays every date. */
export const bootstraps = (req: Pick<CalculateRequest, 'method' | 'time_horizon'>): boolean => req.method === 'historical_filtered' && req.time_horizon > 1;

/** Whether the method draws `simulations` scenarios from a seed (Monte Carlo, bootstrap paths); the others ignore both. */
export const drawsSimulations = (req: Pick<CalculateRequest, 'method' | 'time_horizon'>): boolean => MONTE_CARLO.has(req.method) || bootstraps(req);

/**
 * Steps (paths × days × assets) below which the paths are drawn by one task: splitting costs a copy
 * of z per task, which outweighs the draws of a small request.
 */
export const MIN_SPLIT_BOOTSTRAP_STEPS = 2 ** 21;

export interface BootstrapRun {
  executor: EngineExecutor;
  signal?: AbortSignal;
  /** Date.now() by which the engine must stop. */
  deadline?: number;
  /** Most tasks at once (the worker count). */
  parts: number;
}

/** The bound the engine declares (limits.rs MAX_BOOTSTRAP_STEPS), checked before z is copied to a worker. */
export function checkBootstrapSteps(paths: number, horizon: number, assets: number): void {
  if (paths * horizon * assets <= ABI.MAX_BOOTSTRAP_STEPS) return;
  const limit = ABI.MAX_BOOTSTRAP_STEPS.toExponential().replace('e+', 'e');
  throw new EngineFailure(
    ABI.ERR_LIMIT_EXCEEDED,
    0,
    `simulations × time_horizon × assets of a filtered bootstrap must be at most ${limit}: ${paths} × ${horizon} × ${assets}`,
  );
}

/**
 * The model's paths' T-day log returns, [path][asset], drawn by the engine on the pool in up to
 * `parts` contiguous ranges: each path has its own seeded stream, so the split changes no bit.
 */
export async function bootstrapPaths(model: BootstrapModel, run: BootstrapRun): Promise<Float64Array> {
  checkBootstrapSteps(model.paths, model.horizon, model.assets);
  const steps = model.paths * model.horizon * model.assets;
  const parts = steps < MIN_SPLIT_BOOTSTRAP_STEPS ? 1 : Math.max(1, Math.min(Math.floor(run.parts), model.paths));
  const budget = () => (run.deadline === undefined ? 0 : Math.max(1, run.deadline - Date.now()));
  const ranges = Array.from({ length: parts }, (_, k) => [Math.floor((k * model.paths) / parts), Math.floor(((k + 1) * model.paths) / parts)] as const);
  const replies = await Promise.all(
    ranges.map(([first, end]) => run.executor.run(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(model, first, end, budget()), run.signal)),
  );
  const out = new Float64Array(model.paths * model.assets);
  replies.forEach((r, k) => out.set(decodeBootstrap(r.output), ranges[k]![0] * model.assets));
  return out;
}
