// An estimation on the Cholesky path through a pool of two WASM workers: whole (one task computes
// Σ and factors it) against split (each worker computes half of Σ's lower triangle, one factors
// it), interleaved, medians. Both must give the same bits: a fast wrong split fails here; and the
// parts' spans on the workers are recorded, so that parts run one after the other are seen as such.
import { resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { type Estimation } from '../../src/engine/codec.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, MIN_SPLIT_ESTIMATION_WORK } from '../../src/risk/engine-run.js';
import { interleaved, median } from './stats.js';
import { overlap, TimedExecutor } from './worker-bench.js';
import { sameBits } from './same-bits.js';
import { factorPrices } from './wide-book-bench.js';

export interface EstimationSplitFigures {
  assets: number;
  returns: number;
  whole_ms: number;
  split_ms: number;
  /** Time whole / time split over two workers (higher is better; 2 at most). */
  whole_over_split: number;
  /** The median over the split rounds of how much the two parts overlapped in time (1 = wholly). */
  overlap: number;
}

function sameEstimation(a: Estimation, b: Estimation): boolean {
  return (Object.keys(a) as (keyof Estimation)[]).every((k) => {
    const [x, y] = [a[k], b[k]];
    if (typeof x === 'number' || x === undefined) return Object.is(x, y);
    return sameBits(x, y as Float64Array);
  });
}

export async function benchEstimationSplit(assets: number, dates: number, repeats: number): Promise<EstimationSplitFigures> {
  // Below the threshold the service would not split: "split" would time the whole estimation.
  if ((assets * assets * (dates - 1)) / 2 < MIN_SPLIT_ESTIMATION_WORK) throw new Error(`${assets} × ${dates - 1} returns is too small a Σ to be split`);
  const prices = new Float64Array(assets * dates);
  factorPrices(assets, dates).forEach((row, d) => prices.set(row, d * assets));
  const pool = new EnginePool(resolveEngineSource('wasm'), 2, 64);
  const exec = new TimedExecutor(pool);
  try {
    const options = { lookback: 0, zeroDrift: false, ewmaLambda: null };
    const overlaps: number[] = [];
    const estimate = (parts: number) => async () => {
      exec.spans = [];
      const e = await estimateModel(exec, prices, dates, assets, options, undefined, { parts });
      if (parts > 1) overlaps.push(overlap(exec.spans, ABI.OP_COVARIANCE_PART));
      return e;
    };
    const [whole, split] = [await estimate(1)(), await estimate(2)()]; // also warms both workers
    if (whole.factorColumns !== ABI.FACTOR_TRIANGULAR) throw new Error(`${assets} × ${dates - 1} returns did not take the Cholesky path`);
    if (!sameEstimation(whole, split)) throw new Error('the split estimation differs from the whole one');
    overlaps.length = 0;
    const { ms } = await interleaved({ whole: estimate(1), split: estimate(2) }, repeats);
    return { assets, returns: dates - 1, whole_ms: ms.whole!, split_ms: ms.split!, whole_over_split: ms.whole! / ms.split!, overlap: median(overlaps) };
  } finally {
    await pool.close();
  }
}
