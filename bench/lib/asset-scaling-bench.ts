// Time against the number of assets for both sampling paths, with NumPy on the same axes: the
// engine (WASM simd128, one thread) estimates from prices and runs 10,000 simulations × 1 day at
// 99 %; NumPy (one BLAS thread) does the same from the same prices the way a desk writes it. The
// Cholesky path runs on a window of 5,040 returns (twenty years: every book below 5,040 assets
// takes it), the low-rank path on 250 (one year: every book from 250 assets takes it).
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { estimateModel, runModel } from '../../src/risk/engine-run.js';
import { equalWeightModel } from '../../test/helpers/equal-weight-model.js';
import { tempDir } from '../../test/helpers/service.js';
import { runNumpyScaling } from './numpy.js';
import { median } from './stats.js';
import { factorPrices } from './wide-book-bench.js';

export type SamplingPath = 'cholesky' | 'low_rank';

export interface ScalingPoint {
  assets: number;
  /** Engine, one thread: estimation from prices, then the simulation; medians. */
  estimate_ms: number;
  simulate_ms: number;
  total_ms: number;
  var: number;
  numpy_ms: number | null;
  numpy_var: number | null;
}

export interface PathScaling {
  path: SamplingPath;
  /** Returns in the estimation window. */
  returns: number;
  simulations: number;
  points: ScalingPoint[];
  numpy_blas: unknown;
}

/** The window of each path: the rule (`meta.estimation.sampling`) picks low rank when returns ≤ assets. */
export const PATH_RETURNS: Record<SamplingPath, number> = { cholesky: 5_040, low_rank: 250 };

/** A point from 2,000 assets runs once: one such run takes from seconds to a minute. */
const LARGE_BOOK = 2_000;

function takesPath(sampling: SamplingPath, assets: number): boolean {
  return PATH_RETURNS[sampling] <= assets === (sampling === 'low_rank');
}

/** Each path over the asset counts it takes from `assets`; NumPy from the same prices when `numpy`. */
export async function benchAssetScaling(assets: number[], simulations: number, repeats: number, numpy: boolean): Promise<PathScaling[]> {
  const engine = warmUp(instantiateEngine(resolveEngineSource('wasm')));
  const exec = new DirectExecutor(engine);
  const out: PathScaling[] = [];
  for (const sampling of ['cholesky', 'low_rank'] as const) {
    const counts = assets.filter((n) => takesPath(sampling, n));
    if (counts.length === 0) continue;
    const dates = PATH_RETURNS[sampling] + 1;
    const widest = Math.max(...counts);
    const prices = new Float64Array(dates * widest);
    factorPrices(widest, dates).forEach((row, d) => prices.set(row, d * widest));
    const points: ScalingPoint[] = [];
    for (const n of counts) {
      const columns = new Float64Array(dates * n);
      for (let d = 0; d < dates; d++) columns.set(prices.subarray(d * widest, d * widest + n), d * n);
      const model = equalWeightModel(n, simulations);
      const times = { estimate: [] as number[], simulate: [] as number[] };
      let value = NaN;
      for (let r = 0; r < (n < LARGE_BOOK ? repeats : 1); r++) {
        const start = performance.now();
        const est = await estimateModel(exec, columns, dates, n, { lookback: 0, zeroDrift: false, ewmaLambda: null });
        const estimated = performance.now();
        const results = await runModel(exec, model, est, { maxBatches: 1 });
        times.estimate.push(estimated - start);
        times.simulate.push(performance.now() - estimated);
        const low = est.factorColumns !== ABI.FACTOR_TRIANGULAR;
        if (low !== (sampling === 'low_rank'))
          throw new Error(`${n} assets × ${dates - 1} returns sampled ${low ? 'low rank' : 'by Cholesky'}, not ${sampling}`);
        value = results.books[0]!.valueAtRisk;
      }
      const [e, s] = [median(times.estimate), median(times.simulate)];
      points.push({ assets: n, estimate_ms: e, simulate_ms: s, total_ms: e + s, var: value, numpy_ms: null, numpy_var: null });
    }
    let blas: unknown = null;
    if (numpy) {
      const dir = tempDir('risk-scaling-');
      const file = path.join(dir, 'prices.f64');
      try {
        writeFileSync(file, new Uint8Array(prices.buffer));
        const np = runNumpyScaling(file, dates, counts, simulations, repeats);
        blas = np.blas;
        np.points.forEach((q, i) => {
          const p = points[i]!;
          // Other draws and, when Σ is singular, NumPy's jittered factor: the same model, so the
          // same VaR within a few of its standard errors (about 1.5 % at 10,000 simulations).
          if (!(Math.abs(p.var / q.var - 1) < 0.1)) throw new Error(`${sampling}, ${p.assets} assets: VaR ${p.var} against NumPy's ${q.var}`);
          Object.assign(p, { numpy_ms: q.median_ms, numpy_var: q.var });
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    out.push({ path: sampling, returns: dates - 1, simulations, points, numpy_blas: blas });
  }
  return out;
}
