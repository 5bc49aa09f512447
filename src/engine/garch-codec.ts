import { ABI } from './abi.js';
import { checkStatus } from './codec.js';

/** One asset's GARCH(1,1) fit (engine/core/src/filter/garch.rs). */
export interface GarchFit {
  omega: number;
  alpha: number;
  beta: number;
  logLikelihood: number;
  /** Converged with α + β < 1; else the caller falls back to EWMA. */
  usable: boolean;
}

/** [budget ms, observations, assets, returns [observation][asset]]. */
export function encodeGarchFit(returns: Float64Array, observations: number, assets: number, budgetMs = 0): Float64Array {
  const out = new Float64Array(ABI.GARCH_FIT_HEADER_LEN + returns.length);
  out.set([budgetMs, observations, assets]);
  out.set(returns, ABI.GARCH_FIT_HEADER_LEN);
  return out;
}

export function decodeGarchFit(out: Float64Array): GarchFit[] {
  checkStatus(out);
  const count = out[1] ?? 0;
  return Array.from({ length: count }, (_, i) => {
    const at = ABI.GARCH_FIT_RESULT_HEADER_LEN + i * ABI.GARCH_FIT_WORDS;
    return { omega: out[at]!, alpha: out[at + 1]!, beta: out[at + 2]!, logLikelihood: out[at + 3]!, usable: out[at + 4] === 1 };
  });
}
