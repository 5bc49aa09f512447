import { ABI } from './abi.js';
import { joinedInput } from './ops.js';

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

/** The estimation input's header: its last word says whether Σ's lower triangle follows the prices. */
function estimationHeader(r: Omit<EstimationRequest, 'prices'>, covarianceGiven: boolean): number[] {
  return [r.nDates, r.nAssets, r.lookback, r.zeroDrift ? 1 : 0, r.ewmaLambda === null ? 0 : 1, r.ewmaLambda ?? 0, covarianceGiven ? 1 : 0];
}

/**
 * The estimation's input: the header, then the prices. `memory` 'shared' puts it in a
 * SharedArrayBuffer, which the covariance parts and the factoring then read where it lies (posted
 * to the workers as it is, not copied once per task).
 */
export function encodeEstimation(r: EstimationRequest, memory: 'own' | 'shared' = 'own'): Float64Array {
  const head = ABI.ESTIMATION_HEADER_LEN;
  const words = head + r.prices.length;
  const out = memory === 'shared' ? new Float64Array(new SharedArrayBuffer(words * 8)) : new Float64Array(words);
  out.set(estimationHeader(r, false));
  out.set(r.prices, head);
  return out;
}

/**
 * An encoded estimation (`encodeEstimation`) with Σ's lower triangle given, row by row, as the
 * covariance parts' rows in order: input parts [header, prices, Σ's lower triangle], which the
 * native engine reads where they lie (the prices are not copied again here nor there).
 */
export function estimationWithCovariance(r: EstimationRequest, estimation: Float64Array, lowerRows: readonly Float64Array[]): Float64Array[] {
  const head = ABI.ESTIMATION_HEADER_LEN;
  return [Float64Array.from(estimationHeader(r, true)), estimation.subarray(head), joinedInput(lowerRows)];
}

/** Part `part` of `parts` of Σ's rows for an encoded estimation input (without a covariance), as input parts [header, estimation]: the estimation is not copied (the native engine reads it where it lies). */
export function covariancePartInput(part: number, parts: number, estimation: Float64Array): Float64Array[] {
  return [Float64Array.of(part, parts), estimation];
}

export interface CovariancePart {
  /** Rows [first, end) of Σ's lower triangle, row i holding its entries j ≤ i. */
  first: number;
  end: number;
  lower: Float64Array;
}

/** Some rows of Σ's lower triangle, or null when the window samples through loadings (no Σ). */
export function decodeCovariancePart(out: Float64Array): CovariancePart | null {
  checkStatus(out);
  if (out[1] === 1) return null;
  const [first = 0, end = 0] = out.subarray(2, ABI.COVARIANCE_PART_RESULT_HEADER_LEN);
  const lower = out.subarray(ABI.COVARIANCE_PART_RESULT_HEADER_LEN);
  if (lower.length !== (end * (end + 1) - first * (first + 1)) / 2) throw new Error(`a covariance part of rows ${first}..${end} holds ${lower.length} values`);
  return { first, end, lower };
}

export interface Estimation {
  observations: number;
  firstDate: number;
  lastDate: number;
  jitter: number;
  mean: Float64Array;
  sampleMean: Float64Array;
  /** Σ, n×n; empty with loadings (the engine never forms it: see `parametricCovariance`). */
  covariance: Float64Array;
  /** Σ = F·Fᵀ: the n×n Cholesky factor (FACTOR_TRIANGULAR), or n×m loadings of the window. */
  factor: Float64Array;
  factorColumns: number;
  /** Instruments over factors (multi-currency books): the factors' own factorColumns, which says how they were sampled. */
  factorsSampled?: number;
  volatility: Float64Array;
  returns: Float64Array;
}

/**
 * The estimation in `out`, its vectors views of `out` (the engine's fresh answer, which nothing
 * else holds): a wide book's is tens of MB, whose copy on the main thread cost as much again in
 * fresh pages.
 */
export function decodeEstimation(out: Float64Array, n: number): Estimation {
  checkStatus(out);
  const [, observations = 0, firstDate = 0, lastDate = 0, jitter = 0, factorColumns = 0] = out;
  let at = ABI.ESTIMATION_RESULT_HEADER_LEN;
  const take = (len: number) => out.subarray(at, (at += len));
  return {
    observations,
    firstDate,
    lastDate,
    jitter,
    factorColumns,
    mean: take(n),
    sampleMean: take(n),
    covariance: take(factorColumns === ABI.FACTOR_TRIANGULAR ? n * n : 0),
    factor: take(n * (factorColumns === ABI.FACTOR_TRIANGULAR ? n : factorColumns)),
    volatility: take(n),
    returns: take(observations * n),
  };
}

/** One book the engine prices: capital C and weights a_i = e_i / C (any sign). */
export interface EngineBook {
  capital: number;
  weights: Float64Array;
  /**
   * The exposures the weights came from (e_i, a_i = e_i / C), where the book was stated by its
   * positions: a buy-and-hold spec sends them as they are (capital 1, weights e_i), so a position
   * that did not move keeps its exposure's bits whatever the capital does (a live book's kept group
   * sums stay valid across ticks); C·(e_i / C) is not always e_i.
   */
  exposures?: Float64Array;
}

/** A long-only Part 1 portfolio as an engine book: C = V, a = w. */
export function portfolioBook(portfolioValue: number, weights: Float64Array): EngineBook {
  return { capital: portfolioValue, weights };
}

/** `what_if`: book 1 (after a trade) against book 0 (before), with the errors of the differences. */
export type Comparison = 'none' | 'what_if';

export const COMPARISON_CODES = { none: ABI.COMPARISON_NONE, what_if: ABI.COMPARISON_WHAT_IF } as const;

/** What a calculation asks of the model, shared by the request side and the engine spec. */
export interface ModelParameters {
  rebalanced: boolean;
  /** Books over the same assets, priced on one scenario set. */
  books: EngineBook[];
  comparison: Comparison;
  horizon: number;
  confidence: number;
  degreesOfFreedom: number;
  seed: number;
  antithetic: boolean;
  /** Shift the normals towards the first book's losses and weight the scenarios (Monte Carlo). */
  importanceSampling: boolean;
  histogramBins: number;
}

/**
 * Writes [capital, weights(n)] per book at `at` (buy-and-hold, a book stated by its positions:
 * [1, exposures(n)]); returns the position after them.
 */
export function writeBooks(out: Float64Array, at: number, books: EngineBook[], buyAndHold: boolean): number {
  for (const b of books) {
    const exposures = buyAndHold ? b.exposures : undefined;
    out[at++] = exposures ? 1 : b.capital;
    out.set(exposures ?? b.weights, at);
    at += b.weights.length;
  }
  return at;
}

/**
 * OP_FINALIZE's input as parts: the count, then each task's partial as it came back (transferred to
 * the worker and read there in place, not joined on the way). A pool moves every part that is its
 * buffer's whole view and clones any other (a view into a larger buffer keeps that buffer here).
 */
export function finalizeInput(partials: readonly Float64Array[]): Float64Array[] {
  return [Float64Array.of(partials.length), ...partials];
}

/** OP_FINALIZE's input joined into one buffer: [count, partial…]. */
export function encodeFinalize(partials: Float64Array[]): Float64Array {
  return joinedInput(finalizeInput(partials));
}

/** OP_FINALIZE_SPLIT's input as parts: [parts, the OP_FINALIZE_PART results…, then OP_FINALIZE's input], each read in place as `finalizeInput`'s are. */
export function finalizeSplitInput(summaries: readonly Float64Array[], partials: readonly Float64Array[]): Float64Array[] {
  return [Float64Array.of(summaries.length), ...summaries, ...finalizeInput(partials)];
}

export interface ParametricRequest {
  horizon: number;
  confidence: number;
  books: EngineBook[];
  comparison: Comparison;
  mean: Float64Array;
  /** Σ (n×n) when `covarianceColumns` is COVARIANCE_DENSE, else the n×m loadings F, Σ = F·Fᵀ. */
  covariance: Float64Array;
  covarianceColumns: number;
}

/** The closed form's Σ from an estimate: dense, or the loadings of a model that never formed it. */
export function parametricCovariance(est: Estimation): Pick<ParametricRequest, 'covariance' | 'covarianceColumns'> {
  return est.factorColumns === ABI.FACTOR_TRIANGULAR
    ? { covariance: est.covariance, covarianceColumns: ABI.COVARIANCE_DENSE }
    : { covariance: est.factor, covarianceColumns: est.factorColumns };
}

export function encodeParametric(r: ParametricRequest): Float64Array {
  const n = r.mean.length;
  const head = ABI.PARAMETRIC_HEADER_LEN;
  const out = new Float64Array(head + r.books.length * (1 + n) + n + 1 + r.covariance.length);
  out.set([n, r.books.length, r.horizon, r.confidence, COMPARISON_CODES[r.comparison]]);
  const at = writeBooks(out, head, r.books, false);
  out.set(r.mean, at);
  out[at + n] = r.covarianceColumns;
  out.set(r.covariance, at + n + 1);
  return out;
}
