import { randomBytes } from 'node:crypto';
import { type Estimation } from '../engine/codec.js';
import { type EngineExecutor } from '../engine/ops.js';
import { selectColumns } from '../datasets/dataset.js';
import { ApiError } from '../contract/errors.js';
import { DEFAULTS, MONTE_CARLO, type CalculateRequest, type CalculateResponseBody } from '../contract/schemas.js';
import { type DatasetStore } from '../datasets/dataset-store.js';
import { type EstimateCache } from './estimate-cache.js';
import { calculationFailure } from './failures.js';
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

/** A fresh seed in [0, 2^53 − 1]. */
function drawSeed(): number {
  return Number(randomBytes(8).readBigUInt64BE() >> 11n);
}

/**
 * One calculation, under one deadline: `timeoutMs` from now, or sooner if the client goes away
 * (`clientSignal`). The engine tasks are aborted at the deadline (native builds also stop
 * themselves then), and every failure leaves as a contract error (see failures.ts).
 */
export async function calculate(req: CalculateRequest, owner: string, deps: CalculatorDeps, clientSignal?: AbortSignal): Promise<CalculateResponseBody> {
  const started = performance.now();
  const deadline = Date.now() + deps.timeoutMs;
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const signal = clientSignal ? AbortSignal.any([clientSignal, timeout]) : timeout;
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
    drift: o.drift ?? DEFAULTS.drift,
    covariance: o.covariance ?? DEFAULTS.covariance,
    ewmaLambda: o.covariance === 'ewma' ? (o.ewma_lambda ?? DEFAULTS.ewma_lambda) : null,
    lookback: o.lookback ?? null,
    degreesOfFreedom: student ? (req.degrees_of_freedom ?? DEFAULTS.degrees_of_freedom) : null,
  };
  const symbols = req.portfolio.map((p) => p.symbol);
  const timing: PhaseTiming = { queueMs: 0, computeMs: 0, batches: 0 };
  try {
    const estKey = [req.dataset_id, symbols.join('\u0001'), opts.lookback, opts.drift, opts.covariance, opts.ewmaLambda].join('|');
    const estimate = () =>
      deps.estimates.get(estKey, () =>
        estimateModel(
          deps.executor,
          selectColumns(dataset, symbols),
          dataset.dates.length,
          symbols.length,
          { lookback: opts.lookback ?? 0, zeroDrift: opts.drift === 'zero', ewmaLambda: opts.ewmaLambda },
          signal,
        ),
      );
    // A shared estimate started by another request dies with that request's abort: then this one
    // (not aborted itself) computes it again under its own deadline, once.
    const est: Estimation = await estimate().catch((e: unknown) => {
      if (signal.aborted || !(e instanceof Error && e.name === 'AbortError')) throw e;
      return estimate();
    });
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
        degreesOfFreedom: opts.degreesOfFreedom ?? DEFAULTS.degrees_of_freedom,
        seed: opts.seed ?? 0,
        antithetic: o.antithetic ?? DEFAULTS.antithetic,
        zeroDrift: opts.drift === 'zero',
        histogramBins: o.histogram_bins ?? DEFAULTS.histogram_bins,
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
    throw calculationFailure(e, { passed: timeout.aborted, ms: deps.timeoutMs });
  }
}
