/** Returns over which the first variance σ²_1 is the mean of r² (api.md §16). */
export const FILTER_SEED_RETURNS = 30;

export interface FilteredReturns {
  /** r̃_t,i = σ_{m+1,i} · r_t,i / σ_t,i, [observation][asset]: whole rows, the cross-section kept. */
  returns: Float64Array;
  /** σ_{m+1} per asset: the volatility the filter forecasts for the next day. */
  current: Float64Array;
  /** √(mean r²) per asset over the window: the zero-mean unconditional volatility EWMA reverts to in expectation. */
  longRun: Float64Array;
}

/**
 * EWMA filter per asset, zero mean: σ²_1 = mean of r² over the first min(30, m) returns,
 * σ²_{t+1} = λσ²_t + (1 − λ)r²_t; z_t = r_t / σ_t (0 where σ_t = 0: every return before it was
 * 0 too), and each row rescaled to today's volatility.
 */
export function ewmaFilter(returns: Float64Array, assets: number, lambda: number): FilteredReturns {
  const m = assets === 0 ? 0 : returns.length / assets;
  const variance = new Float64Array(m + 1);
  const out = new Float64Array(returns.length);
  const current = new Float64Array(assets);
  const longRun = new Float64Array(assets);
  const seed = Math.min(FILTER_SEED_RETURNS, m);
  for (let i = 0; i < assets; i++) {
    let v = 0;
    for (let t = 0; t < seed; t++) v += returns[t * assets + i]! ** 2;
    variance[0] = seed > 0 ? v / seed : 0;
    let all = 0;
    for (let t = 0; t < m; t++) {
      const r = returns[t * assets + i]!;
      variance[t + 1] = lambda * variance[t]! + (1 - lambda) * r * r;
      all += r * r;
    }
    const now = Math.sqrt(variance[m]!);
    for (let t = 0; t < m; t++) {
      const sd = Math.sqrt(variance[t]!);
      out[t * assets + i] = sd > 0 ? (now * returns[t * assets + i]!) / sd : 0;
    }
    current[i] = now;
    longRun[i] = m > 0 ? Math.sqrt(all / m) : 0;
  }
  return { returns: out, current, longRun };
}
