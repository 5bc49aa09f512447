// An estimation on the Cholesky path through a pool of two WASM workers: whole (one task computes
// Σ and factors it) against split (each worker computes half of Σ's lower triangle, one factors
// it), interleaved, medians. Both must give the same bits: a fast wrong split fails here.
import { resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { type Estimation } from '../../src/engine/codec.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, MIN_SPLIT_ESTIMATION_WORK } from '../../src/risk/risk-calculation.js';
import { interleaved } from './stats.js';
import { factorPrices } from './wide-book-bench.js';

export interface EstimationSplitFigures {
  assets: number;
  returns: number;
  whole_ms: number;
  split_ms: number;
  /** Time whole / time split over two workers (higher is better; 2 at most). */
  whole_over_split: number;
}

function sameBits(a: Estimation, b: Estimation): boolean {
  return (Object.keys(a) as (keyof Estimation)[]).every((k) => {
    const [x, y] = [a[k], b[k]];
    if (typeof x === 'number') return Object.is(x, y);
    const v = y as Float64Array;
    return x.length === v.length && x.every((value, i) => Object.is(value, v[i]));
  });
}

export async function benchEstimationSplit(assets: number, dates: number, repeats: number): Promise<EstimationSplitFigures> {
  // Below the threshold the service would not split: "split" would time the whole estimation.
  if ((assets * assets * (dates - 1)) / 2 < MIN_SPLIT_ESTIMATION_WORK) throw new Error(`${assets} × ${dates - 1} returns is too small a Σ to be split`);
  const prices = new Float64Array(assets * dates);
  factorPrices(assets, dates).forEach((row, d) => prices.set(row, d * assets));
  const pool = new EnginePool(resolveEngineSource('wasm'), 2, 64);
  try {
    const options = { lookback: 0, zeroDrift: false, ewmaLambda: null };
    const estimate = (parts: number) => () => estimateModel(pool, prices, dates, assets, options, undefined, { parts });
    const [whole, split] = [await estimate(1)(), await estimate(2)()]; // also warms both workers
    if (whole.factorColumns !== ABI.FACTOR_TRIANGULAR) throw new Error(`${assets} × ${dates - 1} returns did not take the Cholesky path`);
    if (!sameBits(whole, split)) throw new Error('the split estimation differs from the whole one');
    const { ms } = await interleaved({ whole: estimate(1), split: estimate(2) }, repeats);
    return { assets, returns: dates - 1, whole_ms: ms.whole!, split_ms: ms.split!, whole_over_split: ms.whole! / ms.split! };
  } finally {
    await pool.close();
  }
}
