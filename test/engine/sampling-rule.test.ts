// The service plans with its copy of the engine's sampling rule (admission costs, whether to split
// an estimation): it must be the engine's, on both sides of the boundary and at its edges.
import t from 'tap';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { samplesThroughLoadings } from '../../src/engine/sampling-rule.js';
import { estimateModel } from '../../src/risk/engine-run.js';
import { mulberry32 } from '../helpers/mulberry32.js';

t.test('the sampling rule is the engine’s', async (t) => {
  const exec = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  const rand = mulberry32(20261123);
  let both = { loadings: 0, cholesky: 0 };
  for (const assets of [1, 2, 30, 31, 64, 97]) {
    for (const returns of [30, assets - 1, assets, assets + 1, 2 * assets, 2 * assets + 1].filter((m) => m >= 30)) {
      const dates = returns + 1;
      const prices = new Float64Array(assets * dates).fill(100, 0, assets);
      for (let i = assets; i < prices.length; i++) prices[i] = prices[i - assets]! * Math.exp(0.02 * (rand() - 0.5));
      const est = await estimateModel(exec, prices, dates, assets, { lookback: 0, zeroDrift: false, ewmaLambda: null });
      const loadings = est.factorColumns !== ABI.FACTOR_TRIANGULAR;
      t.equal(loadings, samplesThroughLoadings(returns, assets), `${assets} assets, ${returns} returns: ${loadings ? 'loadings' : 'Cholesky'}`);
      both = { loadings: both.loadings + Number(loadings), cholesky: both.cholesky + Number(!loadings) };
    }
  }
  t.ok(both.loadings > 3 && both.cholesky > 3, `both paths seen: ${JSON.stringify(both)}`);
});
