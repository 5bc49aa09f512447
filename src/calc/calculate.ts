import { randomBytes } from 'node:crypto';
import { EngineFailure, type Estimation } from '../engine/codec.js';
import { type EngineExecutor } from '../engine/ops.js';
import { selectColumns } from '../dataset/dataset.js';
import { ApiError, validationError } from '../http/errors.js';
import { MONTE_CARLO, type CalculateRequest, type CalculateResponseBody } from '../http/schemas.js';
import { type DatasetStore } from '../storage/dataset-store.js';
import { type EstimateCache } from './estimate-cache.js';
import { checkRequest } from './request-checks.js';
import { allFinite, buildResponse, type EngineInfo, type ResolvedOptions } from './response-builder.js';
import { estimateModel, runModel, type PhaseTiming } from './risk-calculation.js';

export interface CalculatorDeps {
  datasets: DatasetStore;
  executor: EngineExecutor;
  estimates: EstimateCache;
  engine: EngineInfo;
  /** Most tasks one calculation is split into (the worker count). */
  maxBatches: number;
  /** Compute deadline per calculation (CALC_TIMEOUT_MS). */
  timeoutMs: number;
}

const DEFAULT_DOF = 5;
const DEFAULT_EWMA_LAMBDA = 0.94;
const DEFAULT_BINS = 50;

/** A fresh seed in [0, 2^53 − 1]. */
function drawSeed(): number {
  return Number(randomBytes(8).readBigUInt64BE() >> 11n);
}

function engineError(e: unknown): unknown {
  if (!(e instanceof EngineFailure)) return e;
  if (e.code === 2) {
    return new ApiError('INSUFFICIENT_DATA', `Only ${e.detail} daily returns on dates where every portfolio symbol has a price; at least 30 are needed.`, {
      observations: e.detail,
    });
  }
  if (e.code === 4) return new ApiError('CALCULATION_TIMEOUT', undefined, {}, { 'Retry-After': '1' });
  if (e.code === 3) return validationError([{ loc: ['body', 'simulations'], msg: e.message, type: 'limit_exceeded' }], e.message);
  return e;
}

export async function calculate(req: CalculateRequest, owner: string, deps: CalculatorDeps, signal?: AbortSignal): Promise<CalculateResponseBody> {
  const started = performance.now();
  const deadline = Date.now() + deps.timeoutMs;
  checkRequest(req);
  const stored = await deps.datasets.load(req.dataset_id, owner);
  if (!stored) throw new ApiError('DATASET_NOT_FOUND', `No dataset ${req.dataset_id}.`);
  const dataset = stored.dataset;
  const known = new Set(dataset.symbols);
  const unknown = req.portfolio.map((p) => p.symbol).filter((s) => !known.has(s));
  if (unknown.length > 0) {
    throw new ApiError('UNKNOWN_SYMBOL', `Not in dataset ${req.dataset_id}: ${unknown.slice(0, 20).join(', ')}.`, { symbols: unknown });
  }

  const o = req.method_options ?? {};
  const monteCarlo = MONTE_CARLO.has(req.method);
  const student = req.method === 'monte_carlo_student_t';
  const opts: ResolvedOptions = {
    seed: monteCarlo ? (o.seed ?? drawSeed()) : null,
    drift: o.drift ?? 'sample',
    covariance: o.covariance ?? 'sample',
    ewmaLambda: o.covariance === 'ewma' ? (o.ewma_lambda ?? DEFAULT_EWMA_LAMBDA) : null,
    lookback: o.lookback ?? null,
    degreesOfFreedom: student ? (req.degrees_of_freedom ?? DEFAULT_DOF) : null,
  };
  const symbols = req.portfolio.map((p) => p.symbol);
  const timing: PhaseTiming = { queueMs: 0, computeMs: 0, batches: 0 };
  try {
    const estKey = [req.dataset_id, symbols.join('\u0001'), opts.lookback, opts.drift, opts.covariance, opts.ewmaLambda].join('|');
    const est: Estimation = await deps.estimates.get(estKey, () =>
      estimateModel(
        deps.executor,
        selectColumns(dataset, symbols),
        dataset.dates.length,
        symbols.length,
        { lookback: opts.lookback ?? 0, zeroDrift: opts.drift === 'zero', ewmaLambda: opts.ewmaLambda },
        signal,
      ),
    );
    if (req.method === 'historical' && est.observations < req.time_horizon) {
      throw new ApiError(
        'INSUFFICIENT_DATA',
        `Historical simulation needs at least time_horizon (${req.time_horizon}) returns; ${est.observations} are available.`,
        {
          observations: est.observations,
        },
      );
    }
    const metrics = await runModel(
      deps.executor,
      {
        method: req.method,
        rebalanced: req.portfolio_mode === 'rebalanced',
        portfolioValue: req.portfolio_value,
        weights: Float64Array.from(req.portfolio, (p) => p.weight),
        horizon: req.time_horizon,
        confidence: req.confidence_level,
        simulations: req.simulations ?? 0,
        degreesOfFreedom: opts.degreesOfFreedom ?? DEFAULT_DOF,
        seed: opts.seed ?? 0,
        antithetic: o.antithetic ?? false,
        zeroDrift: opts.drift === 'zero',
        histogramBins: o.histogram_bins ?? DEFAULT_BINS,
      },
      est,
      { maxBatches: deps.maxBatches, deadline },
      signal,
      timing,
    );
    const body = buildResponse(req, dataset.dates, est, metrics, opts, deps.engine, { ...timing, totalMs: performance.now() - started });
    if (!allFinite(body)) throw new Error('engine produced a non-finite number');
    return body;
  } catch (e) {
    throw engineError(e);
  }
}
