// The engine's variance filter (OP_FILTER, api.md §16, T = 1): the same bits on the four builds and
// as the plain TypeScript reference over drawn shapes and recursions (edges included: no returns,
// fewer than the 30 seed returns, one asset, leading zero returns, λ at both ends of (0, 1)); the
// EWMA recursion against its unrolled weighted sum; bad input and overflow refused.
import t, { type Test } from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { decodeFilter, encodeFilter, type Recursion } from '../../src/engine/variance-filter-codec.js';
import { ewmaRecursion } from '../../src/risk/history/variance-filter.js';
import { bitJson } from '../helpers/bit-json.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { completeRows, gaussian } from '../helpers/price-series.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { referenceEwmaFilter, referenceFilter } from '../helpers/variance-filter-reference.js';

const builds = [
  instantiateEngine(resolveEngineSource('wasm')),
  instantiateEngine(resolveEngineSource('wasm-scalar')),
  instantiateEngine(resolveEngineSource('native')),
  NativeEngine.baseline(),
];

const bits = (xs: Float64Array | null) => bitJson(xs ? Array.from(xs) : null);

/** Every build's filter equals the reference to the bit; returns the first build's. */
function sameEverywhere(t: Test, returns: Float64Array, n: number, recursions: Recursion[], withStandardised: boolean, what: string) {
  const want = referenceFilter(returns, n, recursions, withStandardised);
  const input = encodeFilter(n === 0 ? 0 : returns.length / n, n, recursions, withStandardised);
  const got = builds.map((e) => decodeFilter(e.call(ABI.OP_FILTER, input, returns)));
  // Joined into one input, as a host without leads would send it: the same answer.
  const joined = Float64Array.from([returns.length, ...returns, ...input]);
  if (bits(decodeFilter(builds[2]!.call(ABI.OP_FILTER, joined)).returns) !== bits(got[0]!.returns)) t.fail(`${what}: joined input differs`);
  let same = true;
  for (const g of got)
    for (const k of ['returns', 'current', 'longRun', 'standardised'] as const) if (bits(g[k]) !== bits(want[k])) same = false;
  t.ok(same, `${what}: four builds = reference`);
  return got[0]!;
}

t.test('drawn shapes and recursions: four builds = the reference, bit for bit', async (t) => {
  const rand = mulberry32(11);
  const lambdas = [Number.MIN_VALUE, 1e-9, 0.5, 0.94, 0.97, 1 - 2 ** -53];
  const shapes: [number, number][] = [
    [0, 1],
    [1, 1],
    [29, 2],
    [30, 3],
    [31, 1],
    [250, 17],
  ];
  for (let k = 0; k < 12; k++) shapes.push([1 + Math.floor(rand() * 400), 1 + Math.floor(rand() * 40)]);
  for (const [k, [m, n]] of shapes.entries()) {
    const returns = new Float64Array(m * n);
    const scale = 10 ** (-4 + 3 * rand());
    // Asset 0 starts with 40 zero returns (σ_t = 0 there); a few exact zeros elsewhere.
    for (let i = 0; i < m * n; i++) returns[i] = (i % n === 0 && i / n < 40) || rand() < 0.02 ? 0 : scale * gaussian(rand);
    const recursions = Array.from({ length: n }, (_, i) =>
      i % 3 === 2 ? { omega: 1e-6 * rand(), alpha: 0.2 * rand(), beta: 0.75 * rand() } : ewmaRecursion(lambdas[(k + i) % lambdas.length]!),
    );
    sameEverywhere(t, returns, n, recursions, k % 2 === 0, `${m} × ${n}`);
  }
});

t.test('real prices, EWMA 0.94 and GARCH-sized recursions', async (t) => {
  const symbols = ['AAPL', 'MSFT', 'AMZN', 'JPM', 'XOM', 'KO'];
  const { prices } = completeRows(WIDE_SAMPLE, symbols);
  const [n, m] = [symbols.length, prices.length - 1];
  const returns = new Float64Array(m * n);
  for (let d = 0; d < m; d++) for (let i = 0; i < n; i++) returns[d * n + i] = Math.log(prices[d + 1]![i]! / prices[d]![i]!);
  const f = sameEverywhere(t, returns, n, symbols.map(() => ewmaRecursion(0.94)), true, 'EWMA 0.94');
  t.ok(f.current.every((x) => x > 0 && x < 1), 'σ_{m+1} a daily volatility');
  sameEverywhere(t, returns, n, symbols.map((_, i) => ({ omega: 2e-6 * (i + 1), alpha: 0.08, beta: 0.9 })), false, 'GARCH');
});

t.test('EWMA: the recursion equals its unrolled weighted sum to 1e-12', async (t) => {
  const rand = mulberry32(5);
  const [m, n, lambda] = [300, 3, 0.94];
  const r = new Float64Array(m * n);
  // A volatility regime change halfway, and an asset whose first returns are zero.
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) r[i * n + j] = j === 2 && i < 40 ? 0 : (i < 150 ? 0.01 : 0.03) * gaussian(rand);
  const f = decodeFilter(builds[0]!.call(ABI.OP_FILTER, encodeFilter(m, n, Array.from({ length: n }, () => ewmaRecursion(lambda)), false), r));
  const close = (got: number, want: number, msg: string) => t.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${msg}: ${got} vs ${want}`);
  for (let j = 0; j < n; j++) {
    const seed = Math.min(ABI.FILTER_SEED_RETURNS, m);
    let s1 = 0;
    for (let i = 0; i < seed; i++) s1 += r[i * n + j]! ** 2;
    s1 /= seed;
    // σ²_{t+1} = λ^t σ²_1 + (1 − λ) Σ_{s=1..t} λ^{t−s} r²_s (1-based), independent of the loop's order.
    const variance = (t1: number) => {
      let v = lambda ** (t1 - 1) * s1;
      for (let s = 1; s < t1; s++) v += (1 - lambda) * lambda ** (t1 - 1 - s) * r[(s - 1) * n + j]! ** 2;
      return v;
    };
    const now = Math.sqrt(variance(m + 1));
    close(f.current[j]!, now, `σ_{m+1} of asset ${j}`);
    let worst = 0;
    for (let i = 0; i < m; i++) {
      const sd = Math.sqrt(variance(i + 1));
      const want = sd > 0 ? (now * r[i * n + j]!) / sd : 0;
      worst = Math.max(worst, Math.abs(f.returns[i * n + j]! - want) / Math.max(1e-300, Math.abs(want) || 1));
    }
    t.ok(worst <= 1e-12, `asset ${j}: filtered returns within ${worst}`);
    close(f.longRun[j]!, Math.sqrt(Array.from({ length: m }, (_, i) => r[i * n + j]! ** 2).reduce((a, b) => a + b) / m), 'long run');
  }
  t.same(Array.from(referenceEwmaFilter(new Float64Array(0), 2, 0.94).current), [0, 0], 'no returns: zero volatility (reference)');
});

t.test('bad input and overflow refused on every build', async (t) => {
  const ewma = [ewmaRecursion(0.94)];
  const cases: [string, Float64Array, Float64Array, RegExp][] = [
    ['a NaN return', Float64Array.from([0.01, NaN]), encodeFilter(2, 1, ewma, false), /finite/],
    ['a negative α', Float64Array.from([0.01, 0.02]), encodeFilter(2, 1, [{ omega: 0, alpha: -0.1, beta: 0.9 }], false), /recursion parameters/],
    ['no assets', new Float64Array(0), Float64Array.from([0, 0, 0]), /assets/],
    ['returns short of the count', Float64Array.from([0.01]), encodeFilter(2, 1, ewma, false), /observations × assets/],
    ['parameters short of the count', Float64Array.from([0.01, 0.02]), encodeFilter(2, 1, ewma, false).subarray(0, 5), /./],
    ['a variance past double precision', new Float64Array(40).fill(0.01), encodeFilter(40, 1, [{ omega: 0, alpha: 0, beta: 1e300 }], false), /double precision/],
  ];
  for (const e of builds)
    for (const [what, returns, input, message] of cases) t.throws(() => decodeFilter(e.call(ABI.OP_FILTER, input, returns)), message, `${e.build}: ${what}`);
  const [, returns, input] = cases[5]!;
  t.equal(builds[0]!.call(ABI.OP_FILTER, input, returns)[0], ABI.ERR_OVERFLOW, 'overflow is ERR_OVERFLOW');
});
