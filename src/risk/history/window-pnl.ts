import { type EngineBook } from '../../engine/codec.js';

/**
 * The P&L of `book` on every overlapping `horizon`-day window of `returns` [observation][asset]
 * (the scenarios of historical simulation, api.md §5), each return less `drift`:
 * buy-and-hold Σ_i C a_i (e^{R_i} − 1) with R_i the window's summed log return; rebalanced
 * C (Π_t (1 + Σ_i a_i (e^{r_t,i} − 1)) − 1).
 */
export function windowPnl(returns: Float64Array, assets: number, drift: Float64Array, book: EngineBook, horizon: number, rebalanced: boolean): Float64Array {
  const m = assets === 0 ? 0 : returns.length / assets;
  const windows = Math.max(0, m - horizon + 1);
  const out = new Float64Array(windows);
  const { capital: c, weights: a } = book;
  if (rebalanced) {
    // Each day's return of the rebalanced book, then the product over each window.
    const daily = new Float64Array(m);
    for (let t = 0; t < m; t++) {
      let g = 0;
      for (let i = 0; i < assets; i++) g += a[i]! * Math.expm1(returns[t * assets + i]! - drift[i]!);
      daily[t] = g;
    }
    for (let s = 0; s < windows; s++) {
      let growth = 1;
      for (let t = s; t < s + horizon; t++) growth *= 1 + daily[t]!;
      out[s] = c * (growth - 1);
    }
    return out;
  }
  // Window sums per asset, slid along: add the day entering, remove the day leaving.
  const sums = new Float64Array(assets);
  for (let t = 0; t < Math.min(horizon, m); t++) for (let i = 0; i < assets; i++) sums[i]! += returns[t * assets + i]! - drift[i]!;
  for (let s = 0; s < windows; s++) {
    if (s > 0) {
      for (let i = 0; i < assets; i++) sums[i]! += returns[(s + horizon - 1) * assets + i]! - returns[(s - 1) * assets + i]!;
    }
    let pnl = 0;
    for (let i = 0; i < assets; i++) pnl += a[i]! * Math.expm1(sums[i]!);
    out[s] = c * pnl;
  }
  return out;
}
