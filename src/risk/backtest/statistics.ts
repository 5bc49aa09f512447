// Statistics of a VaR/ES backtest over a realised series (api.md §9): exceptions, Kupiec's proportion
// of failures, Christoffersen's independence and conditional coverage, the Basel traffic light, and
// (from es-backtest.ts) the Acerbi–Székely Z2 test. Pure functions of their inputs: no I/O, no clock.
//
// Conventions: day t is an exception when pnl_t < −var_t (strictly; var and es are positive loss
// amounts); p = 1 − c is the exception probability under the model; every 0·ln 0 is 0; a likelihood
// ratio is never negative (a rounding residue below 0 is returned as 0, p-value 1).
import { binomialCdf, chiSquareSurvival } from '../numerics/distributions.js';
import { type Static } from '@sinclair/typebox';
import { type BacktestFigures } from '../../contract/backtest-schemas.js';
import { esBacktest, type Z2SimulationOptions } from './es-backtest.js';

/** The figures this module computes, typed by the response schema that documents them. */
type Figures = Static<typeof BacktestFigures>;
export type LikelihoodRatioTest = Figures['kupiec'];
/** n_ij: the number of days t ≥ 1 in state j whose previous day t − 1 was in state i (1 = exception). */
export type IndependenceTest = Figures['christoffersen_independence'];
export type TransitionCounts = Omit<IndependenceTest, 'lr' | 'p_value'>;
/** `cumulative_probability`: F(x; N, 1 − c) = P(X ≤ x) at the observed number of exceptions x. */
export type TrafficLight = Figures['traffic_light'];
export type TrafficLightZone = TrafficLight['zone'];
/** `es_test` is null when no ES series was given. */
export type BacktestStatistics = Omit<Figures, 'exception_dates' | 'series'>;

export interface BacktestInput {
  pnl: readonly number[];
  var: readonly number[];
  es?: readonly number[];
  confidence: number;
  /** Simulation of the Z2 p-value (es-backtest.ts); required when `es` is given. */
  esTest?: Z2SimulationOptions;
}

/** Traffic-light boundaries on F(x): green below the first, yellow below the second, red from it on (equality goes up). */
export const TRAFFIC_LIGHT_YELLOW_FROM = 0.95;
export const TRAFFIC_LIGHT_RED_FROM = 0.9999;

// Multipliers by number of exceptions, N = 250 at c = 0.99: Basel 3 + plus factor; FRTB (api.md §9).
const BASEL_MULTIPLIERS = [3, 3, 3, 3, 3, 3.4, 3.5, 3.65, 3.75, 3.85];
const FRTB_MULTIPLIERS = [1.5, 1.5, 1.5, 1.5, 1.5, 1.7, 1.76, 1.83, 1.88, 1.92];
const BASEL_RED = 4;
const FRTB_RED = 2;

export function checkConfidence(confidence: number): void {
  if (!(Number.isFinite(confidence) && confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must lie strictly between 0 and 1, got ${String(confidence)}`);
  }
}

function checkCounts(observations: number, exceptions: number): void {
  if (!Number.isSafeInteger(observations) || observations < 1) throw new RangeError(`observations must be a whole number ≥ 1, got ${String(observations)}`);
  if (!Number.isSafeInteger(exceptions) || exceptions < 0 || exceptions > observations) {
    throw new RangeError(`exceptions must be a whole number in 0..${observations}, got ${String(exceptions)}`);
  }
}

/** n·ln(y) with 0·ln(anything) = 0. */
function xLogY(n: number, y: number): number {
  return n === 0 ? 0 : n * Math.log(y);
}

function lrTest(lr: number, dof: 1 | 2): LikelihoodRatioTest {
  const value = lr > 0 ? lr : 0;
  return { lr: value, p_value: chiSquareSurvival(value, dof) };
}

/** I_t = pnl_t < −var_t. The two series must have one finite number per day. */
export function exceptionIndicators(pnl: readonly number[], valueAtRisk: readonly number[]): boolean[] {
  if (pnl.length !== valueAtRisk.length) throw new RangeError(`pnl has ${pnl.length} days but var has ${valueAtRisk.length}`);
  return pnl.map((x, t) => {
    const v = valueAtRisk[t]!;
    if (!Number.isFinite(x) || !Number.isFinite(v)) throw new RangeError(`day ${t}: pnl and var must be finite numbers`);
    return x < -v;
  });
}

/**
 * Kupiec's proportion-of-failures test: LR = −2 ln[(1−p)^(N−x) p^x] + 2 ln[(1−x/N)^(N−x) (x/N)^x],
 * p = 1 − c; p-value from χ²(1).
 */
export function kupiecPof(observations: number, exceptions: number, confidence: number): LikelihoodRatioTest {
  checkConfidence(confidence);
  checkCounts(observations, exceptions);
  const n = observations;
  const x = exceptions;
  const p = 1 - confidence;
  const model = xLogY(n - x, confidence) + xLogY(x, p);
  const observed = (n - x === 0 ? 0 : (n - x) * Math.log1p(-x / n)) + xLogY(x, x / n);
  return lrTest(-2 * model + 2 * observed, 1);
}

/** Counts of the moves from day t − 1 to day t, t = 1..N−1 (they sum to N − 1; all 0 when N ≤ 1). */
export function transitionCounts(hits: readonly boolean[]): TransitionCounts {
  const counts: TransitionCounts = { n00: 0, n01: 0, n10: 0, n11: 0 };
  for (let t = 1; t < hits.length; t++) {
    if (hits[t - 1]) {
      if (hits[t]) counts.n11++;
      else counts.n10++;
    } else if (hits[t]) counts.n01++;
    else counts.n00++;
  }
  return counts;
}

/**
 * Christoffersen's independence test from the transition counts:
 * LR = −2 ln[(1−π)^(n00+n10) π^(n01+n11)] + 2 ln[(1−π01)^n00 π01^n01 (1−π11)^n10 π11^n11],
 * π01 = n01/(n00+n01), π11 = n11/(n10+n11), π = (n01+n11)/(n00+n01+n10+n11); p-value from χ²(1).
 * With 0·ln 0 = 0 every degenerate case is finite: a π whose denominator is 0 only ever multiplies a
 * zero count (no transitions at all, no exceptions, every day an exception, no day after an exception
 * all give LR 0, p-value 1).
 */
export function christoffersenIndependence(counts: TransitionCounts): IndependenceTest {
  const { n00, n01, n10, n11 } = counts;
  for (const [name, n] of Object.entries(counts)) {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${String(n)}`);
  }
  const moves = n00 + n01 + n10 + n11;
  const ratio = (a: number, b: number): number => (a + b === 0 ? 0 : b / (a + b));
  const pi = moves === 0 ? 0 : (n01 + n11) / moves;
  const pi01 = ratio(n00, n01);
  const pi11 = ratio(n10, n11);
  const restricted = xLogY(n00 + n10, 1 - pi) + xLogY(n01 + n11, pi);
  const unrestricted = xLogY(n00, 1 - pi01) + xLogY(n01, pi01) + xLogY(n10, 1 - pi11) + xLogY(n11, pi11);
  return { ...lrTest(-2 * restricted + 2 * unrestricted, 1), n00, n01, n10, n11 };
}

/** Christoffersen's conditional coverage: LR_cc = LR_pof + LR_ind, p-value from χ²(2). */
export function conditionalCoverage(pof: LikelihoodRatioTest, independence: LikelihoodRatioTest): LikelihoodRatioTest {
  return lrTest(pof.lr + independence.lr, 2);
}

/**
 * Basel traffic light from F(x) = P(X ≤ x), X ~ Binomial(N, 1 − c), at the observed x itself (not
 * x − 1): green when F(x) < 0.95, yellow when 0.95 ≤ F(x) < 0.9999, red when F(x) ≥ 0.9999. This
 * reproduces the Basel tables (N = 250 at 99 %: green 0–4, yellow 5–9, red from 10) and MATLAB's
 * `tl` (green, 0.77913 for 57 of 1043 at 95 %). Multipliers only for N = 250 and c === 0.99, else null.
 */
export function trafficLight(observations: number, exceptions: number, confidence: number): TrafficLight {
  checkConfidence(confidence);
  checkCounts(observations, exceptions);
  const f = binomialCdf(exceptions, observations, 1 - confidence);
  const zone: TrafficLightZone = f < TRAFFIC_LIGHT_YELLOW_FROM ? 'green' : f < TRAFFIC_LIGHT_RED_FROM ? 'yellow' : 'red';
  const tabled = observations === 250 && confidence === 0.99;
  return {
    zone,
    cumulative_probability: f,
    basel_multiplier: tabled ? (BASEL_MULTIPLIERS[exceptions] ?? BASEL_RED) : null,
    frtb_multiplier: tabled ? (FRTB_MULTIPLIERS[exceptions] ?? FRTB_RED) : null,
  };
}

/**
 * Every statistic of meta.backtest except the dates and the series: the coverage tests from pnl and
 * var, and the Z2 test when an ES series is given (then `esTest` with its seed is required).
 */
export function backtestStatistics(input: BacktestInput): BacktestStatistics {
  const { pnl, confidence } = input;
  checkConfidence(confidence);
  if (pnl.length < 1) throw new RangeError('a backtest needs at least one day');
  const hits = exceptionIndicators(pnl, input.var);
  const observations = hits.length;
  const exceptions = hits.filter(Boolean).length;
  const kupiec = kupiecPof(observations, exceptions, confidence);
  const independence = christoffersenIndependence(transitionCounts(hits));
  let esTest: BacktestStatistics['es_test'] = null;
  if (input.es !== undefined) {
    if (input.esTest === undefined) throw new RangeError('an ES backtest needs esTest options (at least a seed)');
    esTest = esBacktest(pnl, input.var, input.es, confidence, input.esTest);
  }
  return {
    observations,
    exceptions,
    expected_exceptions: observations * (1 - confidence),
    kupiec,
    christoffersen_independence: independence,
    conditional_coverage: conditionalCoverage(kupiec, independence),
    traffic_light: trafficLight(observations, exceptions, confidence),
    es_test: esTest,
  };
}
