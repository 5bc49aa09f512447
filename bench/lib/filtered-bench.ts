// Filtered historical simulation against plain history (api.md §16; issue 32's bench ratio): one
// estimate of 2,500 dates × 500 assets, then, interleaved, the plain 1-day historical run and the
// filtered one (the EWMA filter of every asset in the engine, OP_FILTER, then the same engine run on the
// filtered rows), one WASM simd128 thread. The filtered run is checked first against its figures
// recomputed here from the filtered rows (order statistics), so a fast wrong filter fails.
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { type Engine } from '../../src/engine/ops.js';
import { estimateModel, runModel, type ModelInput } from '../../src/risk/engine-run.js';
import { replayedEstimation } from '../../src/risk/history/filtered-estimation.js';
import { interleaved, pairedRatio } from './stats.js';
import { factorPrices } from './wide-book-bench.js';

export interface FilteredFigures {
  assets: number;
  returns: number;
  plain_ms: number;
  filtered_ms: number;
  /** Plain ms / filtered ms, the median of the rounds' ratios (higher is faster; the issue asks ≥ 0.5). */
  plain_over_filtered: number;
}

export async function benchFilteredHistory(engine: Engine, assets: number, dates: number, repeats: number): Promise<FilteredFigures> {
  const exec = new DirectExecutor(engine);
  const prices = new Float64Array(assets * dates);
  factorPrices(assets, dates).forEach((row, d) => prices.set(row, d * assets));
  const est = await estimateModel(exec, prices, dates, assets, { lookback: 0, zeroDrift: false, ewmaLambda: null });
  const weights = new Float64Array(assets).fill(1 / assets);
  const model: ModelInput = {
    method: 'historical',
    rebalanced: false,
    books: [{ capital: 1e6, weights }],
    comparison: 'none',
    horizon: 1,
    confidence: 0.99,
    degreesOfFreedom: 5,
    seed: 0,
    antithetic: false,
    importanceSampling: false,
    histogramBins: 50,
    simulations: 0,
    zeroDrift: false,
  };
  const policy = { maxBatches: 1 };
  const plain = () => runModel(exec, model, est, policy);
  const ewma = { model: 'ewma', lambda: 0.94 } as const;
  const filtered = async () => runModel(exec, model, (await replayedEstimation(est, ewma, false, { executor: exec })).est, policy);
  // The check: the filtered VaR from the filtered rows' P&L, sorted here.
  const rows = (await replayedEstimation(est, ewma, false, { executor: exec })).est.returns;
  const pnl = Array.from({ length: est.observations }, (_, t) => {
    let x = 0;
    for (let i = 0; i < assets; i++) x += 1e6 * weights[i]! * Math.expm1(rows[t * assets + i]!);
    return x;
  }).sort((a, b) => a - b);
  const want = -pnl[Math.ceil(0.01 * pnl.length - 1e-9) - 1]!;
  const got = (await filtered()).books[0]!.valueAtRisk;
  if (!(Math.abs(got - want) <= 1e-9 * Math.abs(want))) throw new Error(`filtered VaR ${got} disagrees with its recomputation ${want}`);
  const { ms, samples } = await interleaved({ plain, filtered }, repeats);
  return {
    assets,
    returns: est.observations,
    plain_ms: ms.plain!,
    filtered_ms: ms.filtered!,
    plain_over_filtered: pairedRatio(samples, 'plain', 'filtered'),
  };
}
