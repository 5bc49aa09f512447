import { ABI } from '../../engine/abi.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { decodeFilter, encodeFilter, type FilteredReturns, type Recursion } from '../../engine/variance-filter-codec.js';

/** EWMA as the recursion it is: 0 + (1 − λ)r² + λσ² adds the very terms λσ² + (1 − λ)r² does, so the bits agree. */
export const ewmaRecursion = (lambda: number): Recursion => ({ omega: 0, alpha: 1 - lambda, beta: lambda });

/**
 * The filter of every asset (api.md §16) on the pool, one task: a pass over the window too cheap
 * to split (2,500 × 500 returns take a few ms), kept off the main thread.
 */
export async function filterReturns(
  executor: EngineExecutor,
  returns: Float64Array,
  assets: number,
  recursions: Recursion[],
  withStandardised: boolean,
  signal?: AbortSignal,
): Promise<FilteredReturns> {
  const observations = assets === 0 ? 0 : returns.length / assets;
  const reply = await executor.run(ABI.OP_FILTER, encodeFilter(observations, assets, recursions, withStandardised), signal, returns);
  return decodeFilter(reply.output);
}
