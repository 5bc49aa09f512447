import { randomBytes } from 'node:crypto';
import { ApiError } from '../contract/errors.js';
import { DEFAULTS, HISTORICAL_WINDOWS, type CalculateRequest } from '../contract/schemas.js';
import { selectColumns, type Dataset } from '../datasets/dataset.js';
import { type DatasetStore } from '../datasets/dataset-store.js';
import { type Estimation } from '../engine/codec.js';
import { type EngineExecutor } from '../engine/ops.js';
import { pricesAt } from './books.js';
import { type EstimateCache } from './estimate-cache.js';
import { estimateModel } from './engine-run.js';
import { instrumentPrices, type FxPlan } from './fx/fx-plan.js';
import { instrumentEstimation } from './fx/instrument-estimation.js';
import { type FilterSetting } from './history/filtered-estimation.js';
import { bootstraps, drawsSimulations } from './history/bootstrap-paths.js';

/** A request's model options with their defaults applied, as the response reports them. */
export interface ResolvedOptions {
  seed: number | null;
  drift: 'sample' | 'zero';
  covariance: 'sample' | 'ewma';
  ewmaLambda: number | null;
  lookback: number | null;
  degreesOfFreedom: number | null;
  /** historical_filtered: the variance filter; else null. */
  filter: FilterSetting | null;
}

/** The fields of a request that choose the model, whatever its book(s). */
export type ModelRequest = Pick<
  CalculateRequest,
  'dataset_id' | 'method' | 'method_options' | 'time_horizon' | 'degrees_of_freedom' | 'portfolio_mode' | 'currency' | 'confidence_level'
>;

/** A symbol of the request and where it was stated, for UNKNOWN_SYMBOL's `errors`. */
export interface SymbolRef {
  symbol: string;
  loc: (string | number)[];
}

/** The model of one calculation: its data, options and estimate over `symbols`. */
export interface PreparedModel {
  dataset: Dataset;
  symbols: string[];
  opts: ResolvedOptions;
  est: Estimation;
  /** Each symbol's price on the estimation's last date. */
  prices: Float64Array;
}

/** A fresh seed in [0, 2^53 − 1]. */
function drawSeed(): number {
  return Number(randomBytes(8).readBigUInt64BE() >> 11n);
}

export function resolveOptions(req: ModelRequest): ResolvedOptions {
  const o = req.method_options ?? {};
  return {
    // Filtered history over T > 1 days draws its bootstrap paths from a seed too.
    seed: drawsSimulations(req) ? (o.seed ?? drawSeed()) : null,
    drift: o.drift ?? DEFAULTS.drift,
    covariance: o.covariance ?? DEFAULTS.covariance,
    ewmaLambda: o.covariance === 'ewma' ? (o.ewma_lambda ?? DEFAULTS.ewma_lambda) : null,
    lookback: o.lookback ?? null,
    degreesOfFreedom: req.method === 'monte_carlo_student_t' ? (req.degrees_of_freedom ?? DEFAULTS.degrees_of_freedom) : null,
    filter:
      req.method !== 'historical_filtered'
        ? null
        : o.filter?.model === 'garch11'
          ? { model: 'garch11' }
          : { model: 'ewma', lambda: o.filter?.lambda ?? DEFAULTS.filter_lambda },
  };
}

/** The owner's dataset, every referenced symbol in it (else 404 or 422 UNKNOWN_SYMBOL). */
export async function loadDataset(datasets: DatasetStore, id: string, owner: string, refs: SymbolRef[]): Promise<Dataset> {
  const stored = await datasets.load(id, owner);
  if (!stored) throw new ApiError('DATASET_NOT_FOUND', `No dataset ${id}.`);
  const known = new Set(stored.dataset.symbols);
  const unknown = refs.filter((r) => !known.has(r.symbol));
  if (unknown.length > 0) {
    const symbols = [...new Set(unknown.map((r) => r.symbol))];
    throw new ApiError('UNKNOWN_SYMBOL', `Not in dataset ${id}: ${symbols.slice(0, 20).join(', ')}.`, {
      symbols,
      errors: unknown.slice(0, 20).map((r) => ({ loc: r.loc, msg: `${r.symbol} is not in the dataset`, type: 'unknown_symbol' })),
    });
  }
  return stored.dataset;
}

export interface SetupDeps {
  executor: EngineExecutor;
  estimates: EstimateCache;
  /** Most tasks one calculation is split into (the worker count): a large Σ is computed in as many. */
  maxBatches: number;
  /** Work from which an estimation is split (see `EstimationSplit`; tests lower it). */
  minSplitEstimationWork?: number;
}

/**
 * Estimates the model over `symbols`, or with `fx` over its factors, seen through its instruments
 * (then the model's symbols are the instruments' names) (shared between concurrent requests through the cache). */
export async function prepareModel(
  req: ModelRequest,
  dataset: Dataset,
  symbols: string[],
  deps: SetupDeps,
  signal: AbortSignal,
  fx: FxPlan | null = null,
): Promise<PreparedModel> {
  const opts = resolveOptions(req);
  const factors = fx ? fx.factors : symbols;
  const key = [req.dataset_id, factors.join('\u0001'), opts.lookback, opts.drift, opts.covariance, opts.ewmaLambda].join('|');
  const estimate = () =>
    deps.estimates.get(key, () =>
      estimateModel(
        deps.executor,
        selectColumns(dataset, factors),
        dataset.dates.length,
        factors.length,
        { lookback: opts.lookback ?? 0, zeroDrift: opts.drift === 'zero', ewmaLambda: opts.ewmaLambda },
        signal,
        { parts: deps.maxBatches, minWork: deps.minSplitEstimationWork },
      ),
    );
  // A shared estimate started by another request dies with that request's abort: then this one
  // (not aborted itself) computes it again under its own deadline, once.
  const est: Estimation = await estimate().catch((e: unknown) => {
    if (signal.aborted || !(e instanceof Error && e.name === 'AbortError')) throw e;
    return estimate();
  });
  // Bootstrap paths (filtered history, T > 1) draw days with replacement: any window will do.
  if (HISTORICAL_WINDOWS.has(req.method) && !bootstraps(req) && est.observations < req.time_horizon) {
    throw new ApiError(
      'INSUFFICIENT_DATA',
      `Historical simulation needs at least time_horizon (${req.time_horizon}) returns; ${est.observations} are available.`,
      { observations: est.observations },
    );
  }
  if (!fx) return { dataset, symbols, opts, est, prices: pricesAt(dataset, symbols, est.lastDate) };
  // A multi-currency book: its columns are instruments over the factors (api.md §14).
  return {
    dataset,
    symbols: fx.instruments.map((i) => i.name),
    opts,
    est: instrumentEstimation(est, fx.instruments),
    prices: instrumentPrices(fx, dataset, est.lastDate),
  };
}
