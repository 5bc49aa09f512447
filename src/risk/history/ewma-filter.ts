/** Returns over which the first variance σ²_1 is the mean of r² (api.md §16). */
export const FILTER_SEED_RETURNS = 30;

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

/** One asset's variance recursion σ²_{t+1} = ω + α r²_t + β σ²_t (EWMA: ω = 0, α = 1 − λ, β = λ). */
export interface Recursion {
  omega: number;
  alpha: number;
  beta: number;
}

/** EWMA as the recursion it is: 0 + (1 − λ)r² + λσ² adds the very terms λσ² + (1 − λ)r² does, so the bits agree. */
export const ewmaRecursion = (lambda: number): Recursion => ({ omega: 0, alpha: 1 - lambda, beta: lambda });

/**
 * The filter per asset, zero mean: σ²_1 = mean of r² over the first min(30, m) returns, then each
 * asset's recursion; z_t = r_t / σ_t (0 where σ_t = 0: every return before it was 0 too), and each
 * row rescaled to the next day's volatility σ_{m+1}. `longRun` is √(mean r²) over the window.
 */
export function filterReturns(returns: Float64Array, assets: number, recursions: Recursion[], withStandardised = false): FilteredReturns {
  const m = assets === 0 ? 0 : returns.length / assets;
  const out = new Float64Array(returns.length);
  const variance = new Float64Array(assets);
  const longRun = new Float64Array(assets);
  const [omega, alpha, beta] = (['omega', 'alpha', 'beta'] as const).map((k) => Float64Array.from(recursions, (p) => p[k]));
  const seed = Math.min(FILTER_SEED_RETURNS, m);
  // Row by row, every asset at once (the returns' own layout): first σ_t into `out`, then r̃.
  for (let t = 0; t < seed; t++) for (let i = 0; i < assets; i++) variance[i]! += returns[t * assets + i]! ** 2;
  for (let i = 0; i < assets; i++) variance[i] = seed > 0 ? variance[i]! / seed : 0;
  for (let t = 0; t < m; t++) {
    const row = t * assets;
    for (let i = 0; i < assets; i++) {
      const r = returns[row + i]!;
      out[row + i] = Math.sqrt(variance[i]!);
      variance[i] = omega![i]! + alpha![i]! * r * r + beta![i]! * variance[i]!;
      longRun[i]! += r * r;
    }
  }
  const current = variance.map(Math.sqrt);
  const standardised = withStandardised ? new Float64Array(returns.length) : null;
  for (let t = 0; t < m; t++) {
    const row = t * assets;
    for (let i = 0; i < assets; i++) {
      const sd = out[row + i]!;
      if (standardised) standardised[row + i] = sd > 0 ? returns[row + i]! / sd : 0;
      out[row + i] = sd > 0 ? (current[i]! * returns[row + i]!) / sd : 0;
    }
  }
  for (let i = 0; i < assets; i++) longRun[i] = m > 0 ? Math.sqrt(longRun[i]! / m) : 0;
  return { returns: out, current, longRun, standardised };
}

/** EWMA filter of every asset with decay λ (api.md §16). */
export function ewmaFilter(returns: Float64Array, assets: number, lambda: number): FilteredReturns {
  return filterReturns(
    returns,
    assets,
    Array.from({ length: assets }, () => ewmaRecursion(lambda)),
  );
}
