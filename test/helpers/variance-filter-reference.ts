// A plain TypeScript twin of the engine's variance filter (engine/core/src/filter/variance.rs),
// written loop by loop from api.md §16: the reference the engine's four builds must equal to the
// bit, and what tests use to build filtered inputs independently of the engine.
import { ABI } from '../../src/engine/abi.js';
import { type FilteredReturns, type Recursion } from '../../src/engine/variance-filter-codec.js';
import { ewmaRecursion } from '../../src/risk/history/variance-filter.js';

/** σ²_1 = mean r² over the first min(30, m) returns, each asset's recursion, r̃ = σ_{m+1} r / σ_t. */
export function referenceFilter(returns: Float64Array, assets: number, recursions: Recursion[], withStandardised = false): FilteredReturns {
  const m = assets === 0 ? 0 : returns.length / assets;
  const out = new Float64Array(returns.length);
  const variance = new Float64Array(assets);
  const longRun = new Float64Array(assets);
  const seed = Math.min(ABI.FILTER_SEED_RETURNS, m);
  for (let t = 0; t < seed; t++) for (let i = 0; i < assets; i++) variance[i]! += returns[t * assets + i]! * returns[t * assets + i]!;
  for (let i = 0; i < assets; i++) variance[i] = seed > 0 ? variance[i]! / seed : 0;
  for (let t = 0; t < m; t++) {
    for (let i = 0; i < assets; i++) {
      const r = returns[t * assets + i]!;
      const { omega, alpha, beta } = recursions[i]!;
      out[t * assets + i] = Math.sqrt(variance[i]!);
      variance[i] = omega + alpha * r * r + beta * variance[i]!;
      longRun[i]! += r * r;
    }
  }
  const current = variance.map(Math.sqrt);
  const standardised = withStandardised ? new Float64Array(returns.length) : null;
  for (let k = 0; k < m * assets; k++) {
    const sd = out[k]!;
    if (standardised) standardised[k] = sd > 0 ? returns[k]! / sd : 0;
    out[k] = sd > 0 ? (current[k % assets]! * returns[k]!) / sd : 0;
  }
  for (let i = 0; i < assets; i++) longRun[i] = m > 0 ? Math.sqrt(longRun[i]! / m) : 0;
  return { returns: out, current, longRun, standardised };
}

/** The reference with every asset on EWMA λ. */
export function referenceEwmaFilter(returns: Float64Array, assets: number, lambda: number): FilteredReturns {
  return referenceFilter(
    returns,
    assets,
    Array.from({ length: assets }, () => ewmaRecursion(lambda)),
  );
}
