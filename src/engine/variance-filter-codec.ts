import { ABI } from './abi.js';
import { checkStatus } from './codec.js';

/** One asset's variance recursion σ²_{t+1} = ω + α r²_t + β σ²_t (EWMA: ω = 0, α = 1 − λ, β = λ). */
export interface Recursion {
  omega: number;
  alpha: number;
  beta: number;
}

/** What the engine's filter (engine/core/src/filter/variance.rs) gives for one window of returns. */
export interface FilteredReturns {
  /** r̃_t,i = σ_{m+1,i} · r_t,i / σ_t,i, [observation][asset]: whole rows, the cross-section kept. */
  returns: Float64Array;
  /** σ_{m+1} per asset: the volatility the filter forecasts for the next day. */
  current: Float64Array;
  /** √(mean r²) per asset over the window: the zero-mean unconditional volatility EWMA reverts to in expectation. */
  longRun: Float64Array;
  /** z_t,i = r_t,i / σ_t,i (0 where σ_t,i = 0), when asked for: what T > 1 bootstrap paths draw. */
  standardised: Float64Array | null;
}

/**
 * The input after its lead (the returns [observation][asset], passed as Engine.call's lead so that
 * they are read in place): [observations, assets, standardised 1 or 0], then ω, α, β per asset.
 */
export function encodeFilter(observations: number, assets: number, recursions: Recursion[], withStandardised: boolean): Float64Array {
  const out = new Float64Array(ABI.FILTER_HEADER_LEN + 3 * assets);
  out.set([observations, assets, withStandardised ? 1 : 0]);
  (['omega', 'alpha', 'beta'] as const).forEach((k, j) => out.set(Float64Array.from(recursions, (p) => p[k]), ABI.FILTER_HEADER_LEN + j * assets));
  return out;
}

/** The result's parts as views of `out` (no copies). */
export function decodeFilter(out: Float64Array): FilteredReturns {
  checkStatus(out);
  const [m, n, withStandardised] = [out[1]!, out[2]!, out[3] === 1];
  let at = ABI.FILTER_RESULT_HEADER_LEN;
  const next = (length: number) => out.subarray(at, (at += length));
  const current = next(n);
  const longRun = next(n);
  const returns = next(m * n);
  return { returns, current, longRun, standardised: withStandardised ? next(m * n) : null };
}
