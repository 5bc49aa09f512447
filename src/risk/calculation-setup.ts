import { type EngineBook } from '../engine/codec.js';
import { type Comparison } from '../engine/codec.js';
import { DEFAULTS } from '../contract/schemas.js';
import { type DatasetStore } from '../datasets/dataset-store.js';
import { type ModelRequest, type PreparedModel, type SetupDeps } from './model-setup.js';
import { type Session } from './deadline.js';
import { type WorkAdmission } from './admission.js';
import { type MergeCounts } from './simulate-merge.js';
import { type Calculation, type EngineInfo } from './response-builder.js';
import { type BatchPolicy, type ModelInput } from './engine-run.js';
import { type Precision } from './precision.js';
import { engineMethod, type HistoryExtras } from './history/history-methods.js';

// What calculate and the options path (options/option-calculate.ts) share: the dependencies, the
// engine model of a request, and the calculation the response is built from.

export interface CalculatorDeps extends SetupDeps {
  datasets: DatasetStore;
  engine: EngineInfo;
  /** Compute deadline per calculation (CALC_TIMEOUT_MS). */
  timeoutMs: number;
  /** Admission by estimated work against the deadline (absent: every calculation is admitted). */
  admission?: WorkAdmission;
  /** What the calculations' merges did, counted for /metrics (absent: not counted). */
  mergeCounts?: MergeCounts;
  /** Tests only: the simulation's and the finalize's splits forced (see `BatchPolicy`). */
  batchSplit?: Pick<BatchPolicy, 'minBlocksPerBatch' | 'finalizeParts'>;
}

/** How a calculation's engine work splits over the pool, within its session's deadline: one rule for every path that prices books. */
export function batchPolicy(deps: CalculatorDeps, s: Pick<Session, 'deadline'>): BatchPolicy {
  return { maxBatches: deps.maxBatches, deadline: s.deadline, counts: deps.mergeCounts, ...deps.batchSplit };
}

/** The engine's model of a request's books on the prepared model, with `simulations` scenarios. */
export function modelInputOf(req: ModelRequest, model: PreparedModel, books: EngineBook[], comparison: Comparison, simulations: number): ModelInput {
  const o = req.method_options ?? {};
  return {
    // Filtered history and Cornish–Fisher replay windows as historical simulation does.
    method: engineMethod(req.method),
    rebalanced: req.portfolio_mode === 'rebalanced',
    books,
    comparison,
    horizon: req.time_horizon,
    confidence: req.confidence_level,
    simulations,
    degreesOfFreedom: model.opts.degreesOfFreedom ?? DEFAULTS.degrees_of_freedom,
    seed: model.opts.seed ?? 0,
    antithetic: o.antithetic ?? DEFAULTS.antithetic,
    importanceSampling: (o.variance_reduction ?? DEFAULTS.variance_reduction) === 'importance_sampling',
    zeroDrift: model.opts.drift === 'zero',
    histogramBins: o.histogram_bins ?? DEFAULTS.histogram_bins,
  };
}

/** `listed` (the request's symbols in order of first appearance) as indices into the model's. */
export function calculationOf(
  req: ModelRequest,
  model: PreparedModel,
  listed: string[],
  deps: CalculatorDeps,
  s: Session,
  priced: { precision: Precision | null; extras: HistoryExtras },
): Calculation {
  const { symbols, prices, dataset, est, opts } = model;
  const position = new Map(symbols.map((sym, i) => [sym, i]));
  return {
    precision: priced.precision,
    extras: priced.extras,
    request: req,
    symbols,
    listing: listed.map((sym) => position.get(sym)!),
    prices,
    dates: dataset.dates,
    est,
    opts,
    engine: deps.engine,
    timing: { ...s.timing, totalMs: performance.now() - s.started },
  };
}
