import { ABI } from './abi.js';
import { checkStatus } from './codec.js';

/**
 * Flat encodings of the stress operations; the layouts mirror engine/core/src/abi/stress_codec.rs
 * and their header sizes are the ABI's named constants.
 */

/** One conditional scenario: the model indices it shocks, increasing, and their ln(1 + shock). */
export interface ConditionalScenarioInput {
  horizon: number;
  shocked: number[];
  logShocks: number[];
}

export interface ConditionalRequest {
  /** The book's symbols are the model's first `own`. */
  own: number;
  mean: Float64Array;
  /** Σ (n×n) when `covarianceColumns` is COVARIANCE_DENSE, else the n×m loadings. */
  covariance: Float64Array;
  covarianceColumns: number;
  /** Added to a dense Σ's diagonal (the repair its estimate needed). */
  jitter: number;
  scenarios: ConditionalScenarioInput[];
}

/** Per book symbol: the conditional mean of its T-day log return and its conditional deviation. */
export interface ConditionalOutcome {
  logMeans: Float64Array;
  sds: Float64Array;
}

/** `budgetMs` > 0 bounds the task's run time (native builds). */
export function encodeConditional(r: ConditionalRequest, budgetMs = 0): Float64Array {
  const n = r.mean.length;
  const scenarioValues = r.scenarios.reduce((a, s) => a + 2 + 2 * s.shocked.length, 0);
  const out = new Float64Array(ABI.CONDITIONAL_HEADER_LEN + n + r.covariance.length + scenarioValues);
  out.set([budgetMs, n, r.own, r.covarianceColumns, r.jitter, r.scenarios.length]);
  let at = ABI.CONDITIONAL_HEADER_LEN;
  out.set(r.mean, at);
  out.set(r.covariance, (at += n));
  at += r.covariance.length;
  for (const s of r.scenarios) {
    out[at++] = s.horizon;
    out[at++] = s.shocked.length;
    s.shocked.forEach((index, k) => {
      out[at++] = index;
      out[at++] = s.logShocks[k]!;
    });
  }
  return out;
}

export function decodeConditional(out: Float64Array): ConditionalOutcome[] {
  checkStatus(out);
  const [, count = 0, own = 0] = out;
  let at = ABI.CONDITIONAL_RESULT_HEADER_LEN;
  const take = () => out.slice(at, (at += own));
  return Array.from({ length: count }, () => ({ logMeans: take(), sds: take() }));
}

export interface WorstWindowRequest {
  exposures: Float64Array;
  /** rows × assets, every price present. */
  prices: Float64Array;
  horizons: number[];
}

export function encodeWorstWindow(r: WorstWindowRequest, budgetMs = 0): Float64Array {
  const assets = r.exposures.length;
  const head = ABI.WORST_WINDOW_HEADER_LEN;
  const out = new Float64Array(head + r.horizons.length + assets + r.prices.length);
  out.set([budgetMs, assets === 0 ? 0 : r.prices.length / assets, assets, r.horizons.length]);
  out.set(r.horizons, head);
  out.set(r.exposures, head + r.horizons.length);
  out.set(r.prices, head + r.horizons.length + assets);
  return out;
}

/** Each horizon's worst start row, or null when the rows span fewer days. */
export function decodeWorstWindow(out: Float64Array): (number | null)[] {
  checkStatus(out);
  return Array.from(out.subarray(ABI.WORST_WINDOW_RESULT_HEADER_LEN), (row) => (row === ABI.WORST_WINDOW_NONE ? null : row));
}
