// A calculation is split into as many tasks as the work of its scenarios is worth: a wide book's
// few thousand simulations go to every worker (each block of 256 is already much work), a small
// book's stay in one task below 64k simulations; the answer is the same bits whatever the split.
import t from 'tap';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { estimateModel, runModel } from '../../src/risk/engine-run.js';
import { equalWeightModel } from '../helpers/equal-weight-model.js';
import { uniformWalkPrices } from '../helpers/price-series.js';

const pricesOf = (assets: number, dates: number) => uniformWalkPrices(assets, dates, assets + dates);
const model = (assets: number, simulations: number) => equalWeightModel(assets, simulations, { seed: 11, histogramBins: 20 });

t.test('tasks follow the work of a scenario; the bits do not', async (t) => {
  const exec = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  const options = { lookback: 0, zeroDrift: false, ewmaLambda: null };
  for (const [assets, dates, simulations, tasks] of [
    [300, 400, 2_560, 2], // 300 assets (Cholesky): 10 blocks, each worth a task
    [10, 100, 20_000, 1], // 10 assets: 79 blocks stay one task below 256
    [10, 100, 140_000, 2], // … and split from 512
  ] as const) {
    const est = await estimateModel(exec, pricesOf(assets, dates), dates, assets, options);
    const timing = { queueMs: 0, computeMs: 0, batches: 0 };
    const split = await runModel(exec, model(assets, simulations), est, { maxBatches: 2 }, undefined, timing);
    t.equal(timing.batches, tasks, `${assets} assets × ${simulations}: ${tasks} task(s) on 2 workers`);
    const whole = await runModel(exec, model(assets, simulations), est, { maxBatches: 1 });
    t.same(split, whole, `${assets} assets × ${simulations}: the same answer as one task`);
    t.ok(Number.isFinite(whole.books[0]!.valueAtRisk) && whole.books[0]!.valueAtRisk > 0, 'a finite, positive VaR');
  }
});
