import { ApiError } from '../../contract/errors.js';
import { DEFAULTS, MONTE_CARLO } from '../../contract/schemas.js';
import { type BacktestRequest } from '../../contract/backtest-schemas.js';
import { type EngineBook } from '../../engine/codec.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { type Session } from '../deadline.js';
import { type PriceHistory } from '../price-history.js';
import { estimateModel, runModel } from '../engine-run.js';
import { cornishFisherResults, engineMethod } from '../history/history-methods.js';
import { replayedEstimation } from '../history/filtered-estimation.js';
import { resolveOptions } from '../model-setup.js';
import { optionForecast, type BacktestOptions } from './option-forecasts.js';

/** One forecast date: the 1-day VaR and ES forecast the day before, and the realised P&L. */
export interface Forecast {
  date: string;
  var: number;
  es: number;
  pnl: number;
}

/**
 * The seed of the forecast for `date` (YYYY-MM-DD) under the request's `seed`: SplitMix64 of the
 * two, in [0, 2^53 − 1]. A date's forecast is the same whatever window the backtest covers.
 */
export function forecastSeed(seed: number, date: string): number {
  const mask = (1n << 64n) - 1n;
  let z = (BigInt(seed) ^ (BigInt(Number(date.replaceAll('-', ''))) * 0x9e3779b97f4a7c15n)) & mask;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
  return Number((z ^ (z >> 31n)) >> 11n);
}

/** Rows (of the complete price history) that get a forecast: the last `window` with W returns before. */
export function forecastRows(history: PriceHistory, window: number, estimationWindow: number): number[] {
  const rows = history.prices.length;
  const first = Math.max(estimationWindow + 1, rows - window);
  if (first > rows - 1) {
    throw new ApiError(
      'INSUFFICIENT_DATA',
      `A backtest needs estimation_window + 2 (${estimationWindow + 2}) dates on which every symbol has a price; ${rows} are available.`,
      { observations: Math.max(0, rows - 1) },
    );
  }
  return Array.from({ length: rows - first }, (_, i) => first + i);
}

export interface ForecastDeps {
  executor: EngineExecutor;
  /** Forecasts in flight at once (each is one estimate and one run on the pool). */
  concurrency: number;
}

/**
 * Rolling out-of-sample forecasts: for each row t, the model estimated on the W returns ending at
 * t − 1 forecasts the 1-day VaR and ES with the request's method; the realised P&L is
 * Σ e_i (P_t,i / P_t−1,i − 1). Monte Carlo forecasts draw from `forecastSeed(seed, date)`.
 */
export async function forecasts(
  req: BacktestRequest,
  book: EngineBook,
  exposures: Float64Array,
  history: PriceHistory,
  rows: number[],
  estimationWindow: number,
  seed: number,
  deps: ForecastDeps,
  session: Session,
  options?: BacktestOptions,
): Promise<Forecast[]> {
  const n = exposures.length;
  const o = req.method_options ?? {};
  const covariance = o.covariance ?? DEFAULTS.covariance;
  const ewmaLambda = covariance === 'ewma' ? (o.ewma_lambda ?? DEFAULTS.ewma_lambda) : null;
  const filter = resolveOptions(req).filter;
  const one = async (t: number): Promise<Forecast> => {
    const prices = new Float64Array((estimationWindow + 1) * n);
    for (let r = 0; r <= estimationWindow; r++) prices.set(history.prices[t - estimationWindow - 1 + r]!, r * n);
    const zeroDrift = (o.drift ?? DEFAULTS.drift) === 'zero';
    const estimated = await estimateModel(deps.executor, prices, estimationWindow + 1, n, { lookback: 0, zeroDrift, ewmaLambda }, session.signal);
    // Filtered history replays the window's filtered returns; Cornish–Fisher reads their P&L's moments.
    const est = (await replayedEstimation(estimated, filter, zeroDrift, { executor: deps.executor, signal: session.signal, deadline: session.deadline })).est;
    const day = { rebalanced: false, books: [book], horizon: 1, confidence: req.confidence_level, zeroDrift };
    const input = {
      ...day,
      method: engineMethod(req.method),
      comparison: 'none' as const,
      simulations: req.simulations ?? 0,
      degreesOfFreedom: req.degrees_of_freedom ?? DEFAULTS.degrees_of_freedom,
      seed: MONTE_CARLO.has(req.method) ? forecastSeed(seed, history.dates[t]!) : 0,
      antithetic: o.antithetic ?? DEFAULTS.antithetic,
      importanceSampling: (o.variance_reduction ?? DEFAULTS.variance_reduction) === 'importance_sampling',
      histogramBins: o.histogram_bins ?? DEFAULTS.histogram_bins,
    };
    if (options) {
      const d = { exec: deps.executor, model: input, est, exposures, deadline: session.deadline, signal: session.signal, timing: session.timing };
      return { date: history.dates[t]!, ...(await optionForecast(options, history, t, d)) };
    }
    const replayed = await runModel(deps.executor, input, est, { maxBatches: 1, deadline: session.deadline }, session.signal, session.timing);
    const results = req.method === 'cornish_fisher' ? cornishFisherResults(replayed, est, day).results : replayed;
    const m = results.books[0]!;
    let pnl = 0;
    for (let i = 0; i < n; i++) pnl += exposures[i]! * (history.prices[t]![i]! / history.prices[t - 1]![i]! - 1);
    return { date: history.dates[t]!, var: m.valueAtRisk, es: m.expectedShortfall, pnl };
  };
  // A bounded number in flight, results in date order: the pool's queue is never flooded.
  const out: Forecast[] = new Array(rows.length);
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      out[i] = await one(rows[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(deps.concurrency, rows.length)) }, worker));
  return out;
}
