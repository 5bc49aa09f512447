// The engine's GARCH(1,1) fits (OP_GARCH_FIT, api.md §16) are the same bits on the four builds, and
// the fitted recursion is what the filter runs (its reference twin here): σ_{m+1} from the fit's parameters equals
// the filter's current volatility bit for bit. The fit's accuracy against the `arch` package is
// engine/core/tests/garch_oracle.rs's.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { decodeGarchFit, encodeGarchFit } from '../../src/engine/garch-codec.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { referenceFilter } from '../helpers/variance-filter-reference.js';
import { MIN_SPLIT_GARCH_ASSETS, replayedEstimation } from '../../src/risk/history/filtered-estimation.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { type Estimation } from '../../src/engine/codec.js';
import { bitJson } from '../helpers/bit-json.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows } from '../helpers/price-series.js';

const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'JPM', 'XOM', 'KO'];

t.test('GARCH fits: four builds, one answer', async (t) => {
  const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
  const n = SYMBOLS.length;
  const m = prices.length - 1;
  const returns = new Float64Array(m * n);
  for (let d = 0; d < m; d++) for (let i = 0; i < n; i++) returns[d * n + i] = Math.log(prices[d + 1]![i]! / prices[d]![i]!);
  const input = encodeGarchFit(returns, m, n);
  const builds = [
    instantiateEngine(resolveEngineSource('wasm')),
    instantiateEngine(resolveEngineSource('wasm-scalar')),
    instantiateEngine(resolveEngineSource('native')),
    NativeEngine.baseline(),
  ];
  const outputs = builds.map((e) => e.call(ABI.OP_GARCH_FIT, input));
  for (const [k, out] of outputs.entries()) t.equal(bitJson(Array.from(out)), bitJson(Array.from(outputs[0]!)), `${builds[k]!.build} = ${builds[0]!.build}`);
  const fits = decodeGarchFit(outputs[0]!);
  t.equal(fits.length, n);
  for (const [i, f] of fits.entries()) {
    t.ok(f.usable, `${SYMBOLS[i]}: ω ${f.omega.toExponential(3)} α ${f.alpha.toFixed(4)} β ${f.beta.toFixed(4)}`);
    t.ok(f.omega > 0 && f.alpha >= 0 && f.beta >= 0 && f.alpha + f.beta < 1);
    // The log-likelihood recomputed here from the column and the fitted parameters.
    let v = 0;
    const seed = Math.min(30, m);
    for (let d = 0; d < seed; d++) v += returns[d * n + i]! ** 2;
    v /= seed;
    let ll = 0;
    for (let d = 0; d < m; d++) {
      const r = returns[d * n + i]!;
      ll += Math.log(2 * Math.PI) + Math.log(v) + (r * r) / v;
      v = f.omega + f.alpha * r * r + f.beta * v;
    }
    t.ok(Math.abs(-0.5 * ll - f.logLikelihood) <= 1e-9 * Math.abs(f.logLikelihood), `log-likelihood ${f.logLikelihood} vs ${-0.5 * ll}`);
  }
  const filtered = referenceFilter(returns, n, fits);
  t.ok(filtered.current.every((x) => Number.isFinite(x) && x > 0), 'the filter runs on the fitted recursions');
  t.equal(bitJson(Array.from(decodeGarchFit(outputs[1]!).map((f) => f.beta))), bitJson(fits.map((f) => f.beta)));
});

t.test('all-zero returns: a fit that is not usable, and bad input refused', async (t) => {
  const engine = instantiateEngine(resolveEngineSource('wasm'));
  const [flat] = decodeGarchFit(engine.call(ABI.OP_GARCH_FIT, encodeGarchFit(new Float64Array(100), 100, 1)));
  t.equal(flat!.usable, false);
  const bad = encodeGarchFit(Float64Array.from([0.01, NaN]), 2, 1);
  t.throws(() => decodeGarchFit(engine.call(ABI.OP_GARCH_FIT, bad)), /finite/);
  t.throws(() => decodeGarchFit(engine.call(ABI.OP_GARCH_FIT, Float64Array.from([0, 3, 1, 0.01]))), 'too few returns for the count');
});

t.test('GARCH fits split over workers by asset groups: the same fits and filtered returns to the bit', async (t) => {
  const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
  const n = SYMBOLS.length;
  const m = prices.length - 1;
  // Twice the sample's columns (the second copy reversed in time), so 12 assets cross MIN_SPLIT_GARCH_ASSETS.
  const wide = 2 * n;
  const returns = new Float64Array(m * wide);
  for (let d = 0; d < m; d++)
    for (let i = 0; i < n; i++) {
      returns[d * wide + i] = Math.log(prices[d + 1]![i]! / prices[d]![i]!);
      returns[(m - 1 - d) * wide + n + i] = returns[d * wide + i]!;
    }
  t.ok(wide >= MIN_SPLIT_GARCH_ASSETS);
  const est = { observations: m, returns, mean: new Float64Array(wide), sampleMean: new Float64Array(wide) } as unknown as Estimation;
  const executor = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  const replay = (parts: number) => replayedEstimation(est, { model: 'garch11' }, false, { executor, parts });
  const [one, ...split] = await Promise.all([1, 2, 5, wide].map(replay));
  for (const [k, r] of split.entries()) {
    t.equal(bitJson(r.state!.parameters), bitJson(one!.state!.parameters), `split ${[2, 5, wide][k]}: the same ω, α, β, log-likelihood`);
    t.equal(bitJson(Array.from(r.est.returns)), bitJson(Array.from(one!.est.returns)), `split ${[2, 5, wide][k]}: the same filtered returns`);
  }
});
