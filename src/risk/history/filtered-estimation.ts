import { ABI } from '../../engine/abi.js';
import { type Estimation } from '../../engine/codec.js';
import { decodeGarchFit, encodeGarchFit, type GarchFit } from '../../engine/garch-codec.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { type Recursion } from '../../engine/variance-filter-codec.js';
import { ewmaRecursion, filterReturns } from './variance-filter.js';
import { bootstrapPaths } from './bootstrap-paths.js';

/** method_options.filter as resolved: EWMA with its λ, or GARCH(1,1) fitted per asset. */
export type FilterSetting = { model: 'ewma'; lambda: number } | { model: 'garch11' };

/** λ of the EWMA a GARCH fit falls back to (api.md §16: the filter's default). */
export const GARCH_FALLBACK_LAMBDA = 0.94;

/** What meta.filter reports of one asset's filter. */
export type FilterParameters = { model: 'ewma'; lambda: number } | { model: 'garch11'; omega: number; alpha: number; beta: number; log_likelihood: number };

/** The filter's state per asset, as meta.filter reports it. */
export interface FilterState {
  current: Float64Array;
  longRun: Float64Array;
  parameters: FilterParameters[];
  /** Assets whose GARCH fit failed (no convergence, or α + β ≥ 1): EWMA was used for them. */
  fallbacks: number[];
}

export interface ReplayContext {
  executor: EngineExecutor;
  signal?: AbortSignal;
  /** Date.now() by which the engine must stop. */
  deadline?: number;
  /** Most tasks at once (the worker count) for GARCH fits and bootstrap paths; 1 if absent. */
  parts?: number;
}

/** T > 1 (api.md §16): `paths` bootstrap paths of `horizon` filtered days, seeded. */
export interface BootstrapSetting {
  horizon: number;
  paths: number;
  seed: number;
}

/**
 * Assets from which the GARCH fits are split over the workers: a fit of 2,500 returns takes about
 * 20 ms (measured native and WASM alike), far more than a task's overhead.
 */
export const MIN_SPLIT_GARCH_ASSETS = 8;

/** Columns first..end of returns [observation][asset] (n assets), in the same layout. */
function columns(returns: Float64Array, observations: number, n: number, first: number, end: number): Float64Array {
  const width = end - first;
  const out = new Float64Array(observations * width);
  for (let t = 0; t < observations; t++) out.set(returns.subarray(t * n + first, t * n + end), t * width);
  return out;
}

/**
 * Each asset's GARCH fit on the pool, in up to `ctx.parts` contiguous groups of assets at once: a
 * fit reads only its own column, so the split changes no bit (test/engine/garch-builds.test.ts).
 */
async function garchFits(est: Estimation, ctx: ReplayContext): Promise<GarchFit[]> {
  const [n, m] = [est.mean.length, est.observations];
  const parts = n < MIN_SPLIT_GARCH_ASSETS ? 1 : Math.max(1, Math.min(Math.floor(ctx.parts ?? 1), n));
  const budget = ctx.deadline === undefined ? 0 : Math.max(1, ctx.deadline - Date.now());
  const bounds = Array.from({ length: parts + 1 }, (_, k) => Math.floor((k * n) / parts));
  const replies = await Promise.all(
    bounds.slice(1).map((end, k) => {
      const input = parts === 1 ? est.returns : columns(est.returns, m, n, bounds[k]!, end);
      return ctx.executor.run(ABI.OP_GARCH_FIT, encodeGarchFit(input, m, end - bounds[k]!, budget), ctx.signal);
    }),
  );
  return replies.flatMap((r) => decodeGarchFit(r.output));
}

/** Each asset's recursion and what meta.filter says of it: EWMA, or the engine's GARCH fits (on the pool). */
async function recursions(est: Estimation, setting: FilterSetting, ctx: ReplayContext) {
  const n = est.mean.length;
  if (setting.model === 'ewma') {
    const parameters = Array.from({ length: n }, () => ({ model: 'ewma' as const, lambda: setting.lambda }));
    return { recursions: parameters.map(() => ewmaRecursion(setting.lambda)), parameters, fallbacks: [] as number[], longRun: null };
  }
  const fits = await garchFits(est, ctx);
  const fallbacks = fits.flatMap((f, i) => (f.usable ? [] : [i]));
  const recursions: Recursion[] = fits.map((f) => (f.usable ? f : ewmaRecursion(GARCH_FALLBACK_LAMBDA)));
  const parameters: FilterParameters[] = fits.map((f) =>
    f.usable
      ? { model: 'garch11', omega: f.omega, alpha: f.alpha, beta: f.beta, log_likelihood: f.logLikelihood }
      : { model: 'ewma', lambda: GARCH_FALLBACK_LAMBDA },
  );
  // GARCH's long-run variance ω / (1 − α − β); a fallback's, the window's mean square.
  const longRun = fits.map((f) => (f.usable ? Math.sqrt(f.omega / (1 - f.alpha - f.beta)) : null));
  return { recursions, parameters, fallbacks, longRun };
}

/** Each asset's mean over `rows` rows of `returns` [row][asset], in row order. */
function columnMeans(returns: Float64Array, rows: number, n: number): Float64Array {
  const mean = new Float64Array(n);
  for (let t = 0; t < rows; t++) for (let i = 0; i < n; i++) mean[i]! += returns[t * n + i]!;
  for (let i = 0; i < n; i++) mean[i] = rows > 0 ? mean[i]! / rows : 0;
  return mean;
}

/**
 * The estimation with its returns replaced by the filtered ones (and, for drift "zero", their own
 * sample mean), or as it is without a filter. With `bootstrap` (T > 1) the returns are instead the
 * paths' T-day log returns, one row per path, to be replayed as one-day windows (`horizon` 1).
 */
export async function replayedEstimation(
  est: Estimation,
  setting: FilterSetting | null,
  zeroDrift: boolean,
  ctx: ReplayContext,
  bootstrap: BootstrapSetting | null = null,
): Promise<{ est: Estimation; state: FilterState | null; horizon: number | null }> {
  if (!setting) return { est, state: null, horizon: null };
  const n = est.mean.length;
  const r = await recursions(est, setting, ctx);
  const f = await filterReturns(ctx.executor, est.returns, n, r.recursions, bootstrap !== null, ctx.signal);
  const longRun = r.longRun ? Float64Array.from(r.longRun, (v, i) => v ?? f.longRun[i]!) : f.longRun;
  const state = { current: f.current, longRun, parameters: r.parameters, fallbacks: r.fallbacks };
  if (bootstrap) {
    const column = (k: keyof Recursion) => Float64Array.from(r.recursions, (p) => p[k]);
    const paths = await bootstrapPaths(
      {
        observations: est.observations,
        assets: n,
        ...bootstrap,
        current: f.current,
        omega: column('omega'),
        alpha: column('alpha'),
        beta: column('beta'),
        standardised: f.standardised!,
      },
      { executor: ctx.executor, signal: ctx.signal, deadline: ctx.deadline, parts: ctx.parts ?? 1 },
    );
    // Drift "zero" centres the paths on their own mean, as T = 1 centres the filtered days.
    const sampleMean = zeroDrift ? columnMeans(paths, bootstrap.paths, n) : new Float64Array(n);
    return { est: { ...est, returns: paths, observations: bootstrap.paths, sampleMean }, state, horizon: 1 };
  }
  // Only drift "zero" reads it (historical replays the returns less it): not computed otherwise.
  const sampleMean = zeroDrift ? columnMeans(f.returns, est.observations, n) : new Float64Array(n);
  return { est: { ...est, returns: f.returns, sampleMean }, state, horizon: null };
}
