import { decodeResults, type EngineResults } from '../engine/results-codec.js';
import {
  type CovariancePart,
  decodeCovariancePart,
  decodeEstimation,
  EngineFailure,
  covariancePartInput,
  encodeEstimation,
  estimationWithCovariance,
  encodeParametric,
  parametricCovariance,
  type EngineBook,
  type Estimation,
  type ModelParameters,
  type SimulatedMethod,
} from '../engine/codec.js';
import { specParts, type SimulationSpec } from '../engine/spec-codec.js';
import { ABI } from '../engine/abi.js';
import { samplesThroughLoadings } from '../engine/sampling-rule.js';
import { type EngineExecutor } from '../engine/ops.js';
import { addPhase, type PhaseTiming } from './phase-timing.js';
import { simulateAndMerge, type MergeCounts } from './simulate-merge.js';
import { minBlocksFor, planBatches } from './plan.js';
import { steppedDays, workUnits } from './work-cost.js';

export interface BatchPolicy {
  maxBatches: number;
  /** Date.now() by which the engine must stop (native builds stop themselves; see deadline.rs). */
  deadline?: number;
  /** Fewest 256-simulation blocks per batch (default: `minBlocksFor` the model; tests lower it to force splits). */
  minBlocksPerBatch?: number;
  /**
   * Parts the finalize is split into, each over a run of the simulate tasks' partials (default 1:
   * one OP_FINALIZE). Any number gives the same bits (the engine's tests show it). Off by default:
   * on W2 over two WASM workers the parts' extra round trip (7–14 ms, the partials copied to them)
   * measured about what the merge saved (single finalize 30–32 ms; merge 27 ms after parts).
   */
  finalizeParts?: number;
  /** Where the service counts what its merges did (/metrics). */
  counts?: MergeCounts;
}

export type Method = SimulatedMethod | 'parametric_normal';

export interface EstimationOptions {
  lookback: number; // 0 = all returns
  zeroDrift: boolean;
  ewmaLambda: number | null;
}

export interface ModelInput extends ModelParameters {
  method: Method;
  simulations: number;
  zeroDrift: boolean;
}

/**
 * Multiply-adds of Σ (assets² × returns / 2) from which an estimation is split over the workers:
 * about 0.4 s of one WASM worker. Each part reads every price and takes its logarithms, and the
 * factor stays on one worker, so a smaller Σ gains nothing (measured: 1,000 × 1,260 alike).
 */
export const MIN_SPLIT_ESTIMATION_WORK = 2 ** 30;

export interface EstimationSplit {
  /** Most tasks computing Σ at once (the worker count). */
  parts: number;
  /** Work from which to split (default MIN_SPLIT_ESTIMATION_WORK; tests lower it to force splits). */
  minWork?: number;
}

/**
 * Estimates μ, Σ and its factor from prices [date][asset] (NaN = missing). With `split.parts` > 1
 * and enough work, the rows of Σ are computed by that many tasks at once and the estimation factors
 * their concatenation: the same bits as one task (the engine's tests show it for any split).
 */
export async function estimateModel(
  exec: EngineExecutor,
  prices: Float64Array,
  nDates: number,
  nAssets: number,
  options: EstimationOptions,
  signal?: AbortSignal,
  split: EstimationSplit = { parts: 1 },
): Promise<Estimation> {
  const request = { prices, nDates, nAssets, ...options };
  const parts = Math.floor(split.parts);
  // Missing prices can only shorten the window: with loadings at its longest, Σ is never formed.
  const mostReturns = Math.max(0, options.lookback > 0 ? Math.min(options.lookback, nDates - 1) : nDates - 1);
  const sigmaWork = samplesThroughLoadings(mostReturns, nAssets) ? 0 : (nAssets * nAssets * mostReturns) / 2;
  if (!(parts > 1 && sigmaWork > 0 && sigmaWork >= (split.minWork ?? MIN_SPLIT_ESTIMATION_WORK))) {
    return decodeEstimation((await exec.run(ABI.OP_ESTIMATE, encodeEstimation(request), signal)).output, nAssets);
  }
  // Written once where every task reads it: the parts and the factoring take it as it lies.
  const shared = encodeEstimation(request, 'shared');
  // One part refused or failed: the others stop too (their rows would be of no use).
  const siblings = new AbortController();
  const abort = () => siblings.abort();
  signal?.addEventListener('abort', abort, { once: true });
  if (signal?.aborted) abort();
  const run = (k: number) =>
    exec.run(ABI.OP_COVARIANCE_PART, covariancePartInput(k, parts, shared), siblings.signal).then(
      (r) => decodeCovariancePart(r.output),
      (e: unknown) => {
        siblings.abort();
        throw e;
      },
    );
  const rows = await Promise.all(Array.from({ length: parts }, (_, k) => run(k))).finally(() => signal?.removeEventListener('abort', abort));
  // null: the window samples through loadings, and the estimation forms no Σ.
  const input = rows.every((r): r is CovariancePart => r !== null) ? estimationWithCovariance(request, shared, orderedRows(rows, nAssets)) : shared;
  return decodeEstimation((await exec.run(ABI.OP_ESTIMATE, input, signal)).output, nAssets);
}

/** The parts' rows in order, checked to follow each other from row 0 to the last. */
function orderedRows(parts: CovariancePart[], nAssets: number): Float64Array[] {
  let row = 0;
  for (const p of parts) {
    if (p.first !== row) throw new Error(`covariance parts out of order: rows ${p.first}..${p.end} after row ${row}`);
    row = p.end;
  }
  if (row !== nAssets) throw new Error(`covariance parts end at row ${row} of ${nAssets}`);
  return parts.map((p) => p.lower);
}

/** Scenarios the method draws: simulations, or the number of overlapping T-day windows. */
export function scenarioCount(model: ModelInput, estimation: Estimation): number {
  if (model.method === 'historical') return estimation.observations - model.horizon + 1;
  if (model.method === 'parametric_normal') return 0;
  return model.simulations;
}

export function simulationSpec(model: ModelInput, est: Estimation): SimulationSpec {
  const method = model.method as SimulatedMethod;
  const historical = method === 'historical';
  return {
    method,
    rebalanced: model.rebalanced,
    books: model.books,
    comparison: model.comparison,
    horizon: model.horizon,
    degreesOfFreedom: model.degreesOfFreedom,
    seed: model.seed,
    antithetic: model.antithetic,
    importanceSampling: model.importanceSampling,
    scenarios: scenarioCount(model, est),
    confidence: model.confidence,
    histogramBins: model.histogramBins,
    // Historical with zero drift removes each asset's sample mean from its returns.
    mean: historical ? (model.zeroDrift ? est.sampleMean : new Float64Array(est.mean.length)) : est.mean,
    factor: historical ? new Float64Array(0) : est.factor,
    factorColumns: est.factorColumns,
    returns: historical ? est.returns : new Float64Array(0),
  };
}

/** Work units of one scenario of `model` (admission's cost model), which sets how finely its blocks split. */
export function scenarioUnits(model: ModelInput, est: Estimation): number {
  const simulated = model.method !== 'historical';
  return workUnits({
    scenarios: 1,
    assets: est.mean.length,
    books: model.books.length,
    steps: simulated ? steppedDays(model.method, model.rebalanced, model.horizon) : 1,
    correlated: simulated,
    window: est.observations,
    confidence: model.importanceSampling ? 0 : model.confidence,
  });
}

/** Fewest books worth splitting a batch by books: below, sharing the draws in one task is cheaper. */
export const MIN_BOOKS_PER_SPLIT = 16;

/**
 * Contiguous groups of books, one task each, when a calculation prices many books and no
 * comparison ties two of them together: a book's figures do not depend on the books beside it (the
 * engine's tests show it bit for bit), so only the speed changes — every worker prices books, each
 * drawing the same scenarios again, which costs little beside the books.
 */
export function bookGroups(model: ModelInput, maxBatches: number): EngineBook[][] {
  const groups = Math.min(Math.floor(maxBatches), Math.floor(model.books.length / (MIN_BOOKS_PER_SPLIT / 2)));
  if (model.comparison !== 'none' || model.books.length < MIN_BOOKS_PER_SPLIT || groups < 2) return [model.books];
  return Array.from({ length: groups }, (_, g) =>
    model.books.slice(Math.floor((g * model.books.length) / groups), Math.floor(((g + 1) * model.books.length) / groups)),
  );
}

async function runBookGroups(
  exec: EngineExecutor,
  model: ModelInput,
  groups: EngineBook[][],
  est: Estimation,
  policy: BatchPolicy,
  signal: AbortSignal | undefined,
  timing: PhaseTiming,
): Promise<EngineResults> {
  const share = { ...policy, maxBatches: Math.max(1, Math.floor(policy.maxBatches / groups.length)) };
  const timings = groups.map(() => ({ queueMs: 0, computeMs: 0, batches: 0 }));
  const results = await Promise.all(groups.map((books, g) => runModel(exec, { ...model, books }, est, share, signal, timings[g])));
  timing.queueMs += Math.max(...timings.map((x) => x.queueMs));
  timing.computeMs += Math.max(...timings.map((x) => x.computeMs));
  timing.batches = timings.reduce((a, x) => a + x.batches, 0);
  return { books: results.flatMap((r) => r.books), whatIf: null };
}

/**
 * Runs the model on the executor. Monte Carlo and historical work is split into up to
 * `maxBatches` tasks whose partials merge exactly: the answer is the same for any split.
 */
export async function runModel(
  exec: EngineExecutor,
  model: ModelInput,
  est: Estimation,
  policy: BatchPolicy,
  signal?: AbortSignal,
  timing: PhaseTiming = { queueMs: 0, computeMs: 0, batches: 0 },
): Promise<EngineResults> {
  if (model.method === 'parametric_normal') {
    const input = encodeParametric({ ...model, mean: est.mean, ...parametricCovariance(est) });
    const reply = await exec.run(ABI.OP_PARAMETRIC, input, signal);
    addPhase(timing, [reply]);
    timing.batches = 1;
    return decodeResults(reply.output);
  }
  const groups = bookGroups(model, policy.maxBatches);
  if (groups.length > 1) {
    // The engine bounds each task's books × scenarios; the calculation's own bound is checked here.
    const scenarios = scenarioCount(model, est);
    if (model.books.length * scenarios > ABI.MAX_PRICED_SCENARIOS) {
      const limit = ABI.MAX_PRICED_SCENARIOS.toExponential().replace('e+', 'e');
      throw new EngineFailure(ABI.ERR_LIMIT_EXCEEDED, 0, `books × simulations must be at most ${limit}: ${model.books.length} × ${scenarios}`);
    }
    return runBookGroups(exec, model, groups, est, policy, signal, timing);
  }
  const spec = simulationSpec(model, est);
  const batches = planBatches(spec.scenarios, policy.maxBatches, policy.minBlocksPerBatch ?? minBlocksFor(scenarioUnits(model, est)));
  const budget = () => (policy.deadline === undefined ? 0 : Math.max(1, policy.deadline - Date.now()));
  timing.batches = batches.length;
  if (batches.length === 1) {
    const only = batches[0]!;
    const reply = await exec.run(ABI.OP_RUN, specParts(spec, only.first, only.end, budget()), signal);
    addPhase(timing, [reply]);
    return decodeResults(reply.output);
  }
  return simulateAndMerge(exec, spec, batches, { finalizeParts: policy.finalizeParts ?? 1, budget, counts: policy.counts }, signal, timing);
}
