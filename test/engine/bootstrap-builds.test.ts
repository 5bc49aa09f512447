// Filtered history's bootstrap paths (OP_BOOTSTRAP_PATHS, api.md §16): the same bits on the four
// builds and for any split of the paths; equal, bit for bit, to an independent TypeScript twin of
// the generator and the recursion given the same drawn rows; and the T-day variance the paths show
// is the one the recursion implies (symmetric standardised rows: no cross terms).
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { decodeBootstrap, encodeBootstrap, type BootstrapModel } from '../../src/engine/bootstrap-codec.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { ewmaRecursion } from '../../src/risk/history/variance-filter.js';
import { referenceFilter } from '../helpers/variance-filter-reference.js';
import { bitJson } from '../helpers/bit-json.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows } from '../helpers/price-series.js';
import { drawnRows, pathReturns, philox } from '../helpers/bootstrap-oracle.js';

const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'JPM', 'XOM', 'KO'];
/** Two EWMA assets, then GARCH recursions of the size real fits give. */
const RECURSIONS = SYMBOLS.map((_, i) => (i < 2 ? ewmaRecursion(i === 0 ? 0.94 : 0.97) : { omega: 1e-6 * i, alpha: 0.05 + 0.01 * i, beta: 0.85 }));

function sampleModel(horizon: number, paths: number, seed: number): BootstrapModel {
  const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
  const n = SYMBOLS.length;
  const m = prices.length - 1;
  const returns = new Float64Array(m * n);
  for (let d = 0; d < m; d++) for (let i = 0; i < n; i++) returns[d * n + i] = Math.log(prices[d + 1]![i]! / prices[d]![i]!);
  const f = referenceFilter(returns, n, RECURSIONS, true);
  const column = (k: 'omega' | 'alpha' | 'beta') => Float64Array.from(RECURSIONS, (p) => p[k]);
  return { observations: m, assets: n, horizon, paths, seed, current: f.current, omega: column('omega'), alpha: column('alpha'), beta: column('beta'), standardised: f.standardised! };
}

t.test('the twin generator: Random123 known answers', async (t) => {
  t.same(philox([0n, 0n, 0n, 0n], [0n, 0n]), [0x6627e8d5n, 0xe169c58dn, 0xbc57ac4cn, 0x9b00dbd8n]);
  t.same(philox([0xffffffffn, 0xffffffffn, 0xffffffffn, 0xffffffffn], [0xffffffffn, 0xffffffffn]), [0x408f276dn, 0x41c83b0en, 0xa20bc7c6n, 0x6d5451fdn]);
});

t.test('bootstrap paths: four builds, any split, one answer, and the twin', async (t) => {
  const model = sampleModel(10, 3000, 2 ** 40 + 7);
  const input = encodeBootstrap(model, 0, model.paths);
  const builds = [
    instantiateEngine(resolveEngineSource('wasm')),
    instantiateEngine(resolveEngineSource('wasm-scalar')),
    instantiateEngine(resolveEngineSource('native')),
    NativeEngine.baseline(),
  ];
  const outputs = builds.map((e) => e.call(ABI.OP_BOOTSTRAP_PATHS, input));
  for (const [k, out] of outputs.entries()) t.equal(bitJson(Array.from(out)), bitJson(Array.from(outputs[0]!)), `${builds[k]!.build} = ${builds[0]!.build}`);
  const whole = decodeBootstrap(outputs[0]!);
  t.equal(whole.length, model.paths * model.assets);
  t.ok(whole.every(Number.isFinite));
  const parts = [0, 1, 1234, 3000].slice(1).map((end, k, ends) => decodeBootstrap(builds[k % 4]!.call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(model, k === 0 ? 0 : ends[k - 1]!, end))));
  t.equal(bitJson(parts.flatMap((p) => Array.from(p))), bitJson(Array.from(whole)), 'paths 0..1, 1..1234, 1234..3000 on three builds = all at once');
  // The twin, from the same standardised rows: every one of the first 300 paths to the bit.
  const n = model.assets;
  const z = Array.from({ length: model.observations }, (_, d) => Array.from(model.standardised.subarray(d * n, (d + 1) * n)));
  let same = 0;
  for (let p = 0; p < 300; p++) {
    const want = pathReturns(drawnRows(model.seed, p, model.horizon, model.observations), z, Array.from(model.current), RECURSIONS);
    if (want.every((x, i) => Object.is(x, whole[p * n + i]))) same++;
  }
  t.equal(same, 300, 'the twin reproduces every path bit for bit');
  const other = decodeBootstrap(builds[0]!.call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap({ ...model, seed: model.seed + 1 }, 0, 10)));
  t.not(bitJson(Array.from(other)), bitJson(Array.from(whole.subarray(0, 10 * n))), 'another seed, other paths');
});

t.test('the T-day variance is the recursion’s: q·Σ_k E[σ²_k] with symmetric rows', async (t) => {
  // Rows z and −z: mean 0 exactly, so E[S²] = q·Σ_{k<T} E[σ²_k] with E[σ²_{k+1}] = ω + (αq + β)E[σ²_k], q = mean z².
  const half = 400;
  const n = 2;
  const rows: number[] = [];
  let u = 12345;
  const uniform = () => ((u = (Math.imul(u, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let d = 0; d < half; d++) rows.push(...Array.from({ length: n }, () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())));
  const z = Float64Array.from([...rows, ...rows.map((x) => -x)]);
  const recursions = [ewmaRecursion(0.94), { omega: 4e-6, alpha: 0.1, beta: 0.85 }];
  const [horizon, paths] = [20, 200_000];
  const model: BootstrapModel = {
    observations: 2 * half,
    assets: n,
    horizon,
    paths,
    seed: 7,
    current: Float64Array.from([0.02, 0.015]),
    omega: Float64Array.from(recursions, (p) => p.omega),
    alpha: Float64Array.from(recursions, (p) => p.alpha),
    beta: Float64Array.from(recursions, (p) => p.beta),
    standardised: z,
  };
  const out = decodeBootstrap(instantiateEngine(resolveEngineSource('wasm')).call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(model, 0, paths)));
  for (let i = 0; i < n; i++) {
    let q = 0;
    for (let d = 0; d < 2 * half; d++) q += z[d * n + i]! ** 2 / (2 * half);
    const p = recursions[i]!;
    let [v, want] = [model.current[i]! ** 2, 0];
    for (let k = 0; k < horizon; k++) [want, v] = [want + q * v, p.omega + (p.alpha * q + p.beta) * v];
    let [s2, s4] = [0, 0];
    for (let k = 0; k < paths; k++) [s2, s4] = [s2 + out[k * n + i]! ** 2, s4 + out[k * n + i]! ** 4];
    const mean = s2 / paths;
    const se = Math.sqrt((s4 / paths - mean * mean) / paths);
    t.ok(Math.abs(mean - want) <= 5 * se, `asset ${i}: T-day variance ${mean.toExponential(5)} vs ${want.toExponential(5)} (SE ${se.toExponential(2)}, ${((mean - want) / se).toFixed(2)} SE)`);
    // GARCH reverts to ω / (1 − αq − β), far below σ²_{m+1} here: the square-root rule σ²_{m+1}·T would fail.
    if (i === 1) t.ok(Math.abs(want - model.current[i]! ** 2 * horizon) > 5 * se, `asset ${i}: distinguishable from σ²·T`);
  }
});

t.test('refusals: beyond MAX_BOOTSTRAP_STEPS, a bad range, non-finite rows', async (t) => {
  const engine = instantiateEngine(resolveEngineSource('wasm'));
  const model = sampleModel(10, 3000, 1);
  const beyond = { ...model, paths: Math.floor(ABI.MAX_BOOTSTRAP_STEPS / (10 * model.assets)) + 1 };
  t.throws(() => decodeBootstrap(engine.call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(beyond, 0, 1))), /at most 2e7/);
  t.throws(() => decodeBootstrap(engine.call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(model, 5, 4))), /first\.\.end/);
  const bad = { ...model, standardised: Float64Array.from(model.standardised, (x, k) => (k === 7 ? NaN : x)) };
  t.throws(() => decodeBootstrap(engine.call(ABI.OP_BOOTSTRAP_PATHS, encodeBootstrap(bad, 0, 1))), /finite/);
});
