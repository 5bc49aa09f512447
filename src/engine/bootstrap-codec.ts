import { ABI } from './abi.js';
import { checkStatus } from './codec.js';

/** What filtered history's T-day paths are drawn from (engine/core/src/filter/bootstrap.rs). */
export interface BootstrapModel {
  observations: number;
  assets: number;
  horizon: number;
  /** Paths over all parts. */
  paths: number;
  seed: number;
  /** σ_{m+1} per asset: where every path starts. */
  current: Float64Array;
  omega: Float64Array;
  alpha: Float64Array;
  beta: Float64Array;
  /** z_t,i = r_t,i / σ_t,i, [observation][asset]. */
  standardised: Float64Array;
}

/** Paths `first..end` of the model: [budget ms, observations, assets, horizon, paths, seed, first, end], σ_{m+1}, ω, α, β, z. */
export function encodeBootstrap(m: BootstrapModel, first: number, end: number, budgetMs = 0): Float64Array {
  const out = new Float64Array(ABI.BOOTSTRAP_HEADER_LEN + 4 * m.assets + m.standardised.length);
  out.set([budgetMs, m.observations, m.assets, m.horizon, m.paths, m.seed, first, end]);
  let at = ABI.BOOTSTRAP_HEADER_LEN;
  for (const column of [m.current, m.omega, m.alpha, m.beta, m.standardised]) {
    out.set(column, at);
    at += column.length;
  }
  return out;
}

/** The paths' T-day log returns, [path][asset]. */
export function decodeBootstrap(out: Float64Array): Float64Array {
  checkStatus(out);
  return out.subarray(ABI.BOOTSTRAP_RESULT_HEADER_LEN);
}
