// An estimation whose Σ is large is split over the workers: each computes some rows of Σ and one
// factors their concatenation. The answer must be the very bits of the estimation done alone, on
// every build, through the real worker pool, for any number of parts; windows that sample through
// loadings form no Σ and are estimated whole.
import t, { type Test } from 'tap';
import { type Estimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource, type EngineChoice } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, MIN_SPLIT_ESTIMATION_WORK, type EstimationOptions } from '../../src/risk/engine-run.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { RecordingExecutor } from '../helpers/recording-executor.js';

/** Prices [date][asset] of a one-factor random walk; some missing (NaN) when asked. */
function pricesOf(assets: number, dates: number, missing = false): Float64Array {
  const rand = mulberry32(assets * 31 + dates);
  const out = new Float64Array(assets * dates).fill(100, 0, assets);
  for (let d = 1; d < dates; d++) {
    const common = rand() - 0.5;
    for (let i = 0; i < assets; i++) out[d * assets + i] = out[(d - 1) * assets + i]! * Math.exp(0.02 * (common + rand() - 0.5));
  }
  if (missing) for (let d = 5; d < dates; d += 23) out[d * assets + (d % assets)] = NaN;
  return out;
}

function sameBits(t: Test, a: Estimation, b: Estimation, what: string): void {
  const fields = Object.keys(a) as (keyof Estimation)[];
  const differing = fields.filter((k) => {
    const [x, y] = [a[k], b[k]];
    if (typeof x === 'number' || x === undefined) return !Object.is(x, y);
    const [u, v] = [x, y as Float64Array];
    return u.length !== v.length || u.some((value, i) => !Object.is(value, v[i]));
  });
  t.same(differing, [], `${what}: every field bit for bit`);
}

const SAMPLE: EstimationOptions = { lookback: 0, zeroDrift: false, ewmaLambda: null };
const CASES: [string, number, number, EstimationOptions, boolean][] = [
  ['40 assets × 200 dates', 40, 200, SAMPLE, false],
  ['37 assets × 150 dates, EWMA, missing prices', 37, 150, { lookback: 0, zeroDrift: true, ewmaLambda: 0.94 }, true],
  ['130 assets × 400 dates, lookback 300', 130, 400, { lookback: 300, zeroDrift: false, ewmaLambda: null }, false],
  ['1 asset × 40 dates', 1, 40, SAMPLE, false],
];

for (const choice of ['wasm', 'wasm-scalar', 'native'] as EngineChoice[]) {
  t.test(`${choice}: split estimations give the bits of the whole`, async (t) => {
    const direct = new DirectExecutor(instantiateEngine(resolveEngineSource(choice)));
    for (const [what, n, dates, options, missing] of CASES) {
      const prices = pricesOf(n, dates, missing);
      const whole = await estimateModel(direct, prices, dates, n, options);
      t.equal(whole.factorColumns, ABI.FACTOR_TRIANGULAR, `${what}: the Cholesky path`);
      for (const parts of [2, 3, 7, n + 2]) {
        const counting = new RecordingExecutor(direct);
        const split = await estimateModel(counting, prices, dates, n, options, undefined, { parts, minWork: 0 });
        t.equal(counting.ops.get(ABI.OP_COVARIANCE_PART), parts, `${what}: ${parts} parts computed Σ`);
        sameBits(t, split, whole, `${what} in ${parts} parts`);
      }
    }
  });
}

t.test('a window that samples through loadings is estimated whole', async (t) => {
  const direct = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  // 61 assets, 30 returns: loadings even at the window's longest, so no part is asked.
  const prices = pricesOf(61, 31);
  const whole = await estimateModel(direct, prices, 31, 61, SAMPLE);
  t.equal(whole.factorColumns, 30, 'loadings: 30 returns, 61 assets');
  const counting = new RecordingExecutor(direct);
  sameBits(t, await estimateModel(counting, prices, 31, 61, SAMPLE, undefined, { parts: 2, minWork: 0 }), whole, 'asked in 2 parts');
  t.same([counting.ops.get(ABI.OP_COVARIANCE_PART), counting.ops.get(ABI.OP_ESTIMATE)], [undefined, 1], 'no part: one estimation');
  // 40 assets, 44 returns at most, but missing prices leave 39: the parts find loadings and answer
  // that no Σ is needed; the estimation then runs whole.
  const gappy = pricesOf(40, 45);
  for (const d of [3, 9, 17, 28, 40]) gappy[d * 40 + 7] = NaN;
  const alone = await estimateModel(direct, gappy, 45, 40, SAMPLE);
  t.equal(alone.factorColumns, 39, 'loadings: 39 complete returns');
  const asked = new RecordingExecutor(direct);
  sameBits(t, await estimateModel(asked, gappy, 45, 40, SAMPLE, undefined, { parts: 2, minWork: 0 }), alone, 'asked in 2 parts');
  t.same([asked.ops.get(ABI.OP_COVARIANCE_PART), asked.ops.get(ABI.OP_ESTIMATE)], [2, 1], 'the parts answered; then one estimation');
});

t.test('only an estimation worth it is split, by default', async (t) => {
  const direct = new DirectExecutor(instantiateEngine(resolveEngineSource('native')));
  // assets² × returns / 2 just below and at the threshold.
  const dates = 3_000;
  const below = Math.floor(Math.sqrt((2 * MIN_SPLIT_ESTIMATION_WORK) / (dates - 1)));
  for (const [n, split] of [
    [below, false],
    [below + 1, true],
  ] as const) {
    const counting = new RecordingExecutor(direct);
    await estimateModel(counting, pricesOf(n, dates), dates, n, SAMPLE, undefined, { parts: 2 });
    t.equal(counting.ops.get(ABI.OP_COVARIANCE_PART) ?? 0, split ? 2 : 0, `${n} assets × ${dates - 1} returns: ${split ? '' : 'not '}split`);
    t.equal((n * n * (dates - 1)) / 2 >= MIN_SPLIT_ESTIMATION_WORK, split, 'the threshold is what decides');
  }
});

t.test('through a real pool of two workers', async (t) => {
  const pool = new EnginePool(resolveEngineSource('wasm'), 2, 64);
  t.teardown(() => pool.close());
  const direct = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  const [n, dates] = [150, 500];
  const prices = pricesOf(n, dates);
  const whole = await estimateModel(direct, prices, dates, n, SAMPLE);
  sameBits(t, await estimateModel(pool, prices, dates, n, SAMPLE, undefined, { parts: 2, minWork: 0 }), whole, 'pool, 2 parts');
  t.equal(prices.length, n * dates, "the caller's prices are still there (copied, not moved)");
});

t.test('the parts and the factoring read one shared copy of the prices', async (t) => {
  const pool = new EnginePool(resolveEngineSource('native'), 2, 64);
  t.teardown(() => pool.close());
  const [n, dates] = [90, 300];
  const prices = pricesOf(n, dates);
  const counting = new RecordingExecutor(pool);
  const split = await estimateModel(counting, prices, dates, n, SAMPLE, undefined, { parts: 2, minWork: 0 });
  sameBits(t, split, await estimateModel(new DirectExecutor(instantiateEngine(resolveEngineSource('native'))), prices, dates, n, SAMPLE), 'pool, 2 parts, native');
  // Each task's input is parts; the one holding the prices is a view of the same shared memory.
  const priced = counting.inputs.map(([op, input]) => {
    const parts = input instanceof Float64Array ? [input] : input;
    return { op, holder: parts.find((p) => p.length >= n * dates) };
  });
  t.same(
    priced.map((x) => x.op),
    [ABI.OP_COVARIANCE_PART, ABI.OP_COVARIANCE_PART, ABI.OP_ESTIMATE],
    'two parts, then the factoring',
  );
  const buffers = new Set(priced.map((x) => x.holder?.buffer));
  t.equal(buffers.size, 1, 'one buffer holds the prices for every task');
  t.ok([...buffers][0] instanceof SharedArrayBuffer, 'in shared memory: posted to the workers, not copied per task');
});
