import { ABI } from './abi.js';

/**
 * Flat f64 encodings of engine requests and results; the layouts mirror engine/core/src/abi/codec.rs
 * and their header sizes are the ABI's named constants. Every result starts with a status word: 0
 * on success, else an engine error code (ABI.ERR_*).
 */

export const METHOD_CODES = {
  monte_carlo_normal: ABI.METHOD_MONTE_CARLO_NORMAL,
  monte_carlo_student_t: ABI.METHOD_MONTE_CARLO_STUDENT_T,
  historical: ABI.METHOD_HISTORICAL,
} as const;
export type SimulatedMethod = keyof typeof METHOD_CODES;

export class EngineFailure extends Error {
  constructor(
    readonly code: number,
    readonly detail: number,
    message: string,
  ) {
    super(message);
  }
}

/** Throws the engine's error if `out` is not a success result. */
export function checkStatus(out: Float64Array): Float64Array {
  if (out[0] === 0) return out;
  const len = out[2] ?? 0;
  const message = Buffer.from(Array.from(out.subarray(3, 3 + len))).toString('utf8');
  throw new EngineFailure(out[0] ?? -1, out[1] ?? 0, message);
}

export interface EstimationRequest {
  prices: Float64Array; // [date][asset], NaN for missing
  nDates: number;
  nAssets: number;
  lookback: number; // 0 = all
  zeroDrift: boolean;
  ewmaLambda: number | null;
}

export function encodeEstimation(r: EstimationRequest): Float64Array {
  const head = ABI.ESTIMATION_HEADER_LEN;
  const out = new Float64Array(head + r.prices.length);
  out.set([r.nDates, r.nAssets, r.lookback, r.zeroDrift ? 1 : 0, r.ewmaLambda === null ? 0 : 1, r.ewmaLambda ?? 0]);
  out.set(r.prices, head);
  return out;
}

export interface Estimation {
  observations: number;
  firstDate: number;
  lastDate: number;
  jitter: number;
  mean: Float64Array;
  sampleMean: Float64Array;
  covariance: Float64Array;
  cholesky: Float64Array;
  volatility: Float64Array;
  returns: Float64Array;
}

export function decodeEstimation(out: Float64Array, n: number): Estimation {
  checkStatus(out);
  const [, observations = 0, firstDate = 0, lastDate = 0, jitter = 0] = out;
  let at = ABI.ESTIMATION_RESULT_HEADER_LEN;
  const take = (len: number) => out.slice(at, (at += len));
  return {
    observations,
    firstDate,
    lastDate,
    jitter,
    mean: take(n),
    sampleMean: take(n),
    covariance: take(n * n),
    cholesky: take(n * n),
    volatility: take(n),
    returns: take(observations * n),
  };
}

/** What a calculation asks of the model, shared by the request side and the engine spec. */
export interface ModelParameters {
  rebalanced: boolean;
  portfolioValue: number;
  weights: Float64Array;
  horizon: number;
  confidence: number;
  degreesOfFreedom: number;
  seed: number;
  antithetic: boolean;
  histogramBins: number;
}

export interface SimulationSpec extends ModelParameters {
  method: SimulatedMethod;
  scenarios: number;
  /** Daily drift (historical: the amount subtracted from each return). */
  mean: Float64Array;
  /** Monte Carlo: Cholesky factor n×n. */
  cholesky: Float64Array;
  /** Historical: returns [observation][asset]. */
  returns: Float64Array;
}

/** Encodes the spec for blocks [first, end); `budgetMs` > 0 bounds the task's run time (native). */
export function encodeSpec(s: SimulationSpec, first: number, end: number, budgetMs = 0): Float64Array {
  const n = s.weights.length;
  const historical = s.method === 'historical';
  const tail = historical ? 1 + s.returns.length : s.cholesky.length;
  const head = ABI.SPEC_HEADER_LEN;
  const out = new Float64Array(head + 2 * n + tail);
  out.set([
    METHOD_CODES[s.method],
    s.rebalanced ? ABI.MODE_REBALANCED : ABI.MODE_BUY_AND_HOLD,
    n,
    s.portfolioValue,
    s.horizon,
    s.degreesOfFreedom,
    s.seed,
    s.antithetic ? 1 : 0,
    s.scenarios,
    s.confidence,
    s.histogramBins,
    first,
    end,
    budgetMs,
  ]);
  out.set(s.weights, head);
  out.set(s.mean, head + n);
  if (historical) {
    out[head + 2 * n] = s.returns.length / n;
    out.set(s.returns, head + 2 * n + 1);
  } else {
    out.set(s.cholesky, head + 2 * n);
  }
  return out;
}

/** Finalize input: [count, partial…]. */
export function encodeFinalize(partials: Float64Array[]): Float64Array {
  const out = new Float64Array(1 + partials.reduce((a, p) => a + p.length, 0));
  out[0] = partials.length;
  let at = 1;
  for (const p of partials) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface ParametricRequest {
  portfolioValue: number;
  horizon: number;
  confidence: number;
  weights: Float64Array;
  mean: Float64Array;
  covariance: Float64Array;
}

export function encodeParametric(r: ParametricRequest): Float64Array {
  const n = r.weights.length;
  const head = ABI.PARAMETRIC_HEADER_LEN;
  const out = new Float64Array(head + 2 * n + n * n);
  out.set([n, r.portfolioValue, r.horizon, r.confidence]);
  out.set(r.weights, head);
  out.set(r.mean, head + n);
  out.set(r.covariance, head + 2 * n);
  return out;
}

export interface EngineMetrics {
  scenarios: number;
  valueAtRisk: number;
  expectedShortfall: number;
  expectedPnl: number;
  volatility: number;
  probabilityOfLoss: number;
  worstLoss: number;
  bestGain: number;
  valueAtRiskStandardError: number;
  expectedShortfallStandardError: number;
  percentiles: number[]; // p01 … p99
  componentEs: number[];
  standaloneVar: number[];
  binEdges: number[];
  counts: number[];
}

export function decodeMetrics(out: Float64Array): EngineMetrics {
  checkStatus(out);
  let at = 1;
  const next = () => out[at++] ?? NaN;
  const take = (len: number) => Array.from(out.subarray(at, (at += len)));
  const scalars = take(ABI.METRICS_SCALARS);
  const percentiles = take(ABI.PERCENTILES);
  const n = next();
  const componentEs = take(n);
  const standaloneVar = take(n);
  const bins = next();
  const binEdges = take(bins > 0 ? bins + 1 : 0);
  const counts = take(bins);
  const [scenarios, valueAtRisk, expectedShortfall, expectedPnl, volatility, probabilityOfLoss, worstLoss, bestGain, varSe, esSe] =
    scalars as [number, number, number, number, number, number, number, number, number, number];
  return {
    scenarios,
    valueAtRisk,
    expectedShortfall,
    expectedPnl,
    volatility,
    probabilityOfLoss,
    worstLoss,
    bestGain,
    valueAtRiskStandardError: varSe,
    expectedShortfallStandardError: esSe,
    percentiles,
    componentEs,
    standaloneVar,
    binEdges,
    counts,
  };
}
