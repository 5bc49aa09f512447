// The TypeScript numerics (src/risk/numerics/) against their engine twins, so that neither drifts:
// the normal quantile (AS 241 here, Acklam + Halley in engine/core/src/math/normal.rs) and density, read
// from the engine's closed form of one unit-variance asset (VaR = z_c, ES = φ(z_c)/(1 − c)) on
// every build; and xoshiro128**, which has no engine twin, against its published outputs.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { encodeParametric, portfolioBook } from '../../src/engine/codec.js';
import { decodeResults } from '../../src/engine/results-codec.js';
import { normalPdf, normalQuantile } from '../../src/risk/numerics/distributions.js';
import { xoshiro128StarStar } from '../../src/risk/numerics/uniform-source.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { type Engine } from '../../src/engine/ops.js';
import { compileWasm, WasmEngine } from '../../src/engine/wasm-engine.js';

const builds: [string, () => Engine][] = [
  ['wasm-simd128', () => new WasmEngine(compileWasm('simd'), 'wasm-simd128')],
  ['wasm-scalar', () => new WasmEngine(compileWasm('scalar'), 'wasm-scalar')],
  ['native', () => new NativeEngine()],
  ['native x86-64', () => NativeEngine.baseline()],
];

/** Confidence levels across the engine's whole range [0.5, 1), its edges included. */
const LEVELS = [0.5, 0.5 + 2 ** -52, 0.6, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9999, 1 - 1e-6, 1 - 1e-9, 1 - 2 ** -40, 1 - 2 ** -52];

t.test('normal quantile and density: the TypeScript functions equal the engine’s on every build', async (t) => {
  for (const [build, make] of builds) {
    const engine = make();
    for (const c of LEVELS) {
      const input = encodeParametric({
        horizon: 1,
        confidence: c,
        books: [portfolioBook(1, new Float64Array([1]))],
        comparison: 'none',
        mean: new Float64Array([0]),
        covariance: new Float64Array([1]),
        covarianceColumns: ABI.COVARIANCE_DENSE,
      });
      const book = decodeResults(engine.call(ABI.OP_PARAMETRIC, input)).books[0]!;
      const z = normalQuantile(c);
      // Relative to max(|z|, 1): next to c = 0.5 the engine's Halley step is exact to about 1e-24 in
      // absolute terms (z ≈ 5.6e-16 at c = 0.5 + 2^-52), not to 1e-14 of so small a z.
      t.ok(Math.abs(book.valueAtRisk - z) <= 1e-14 * Math.max(Math.abs(z), 1), `${build}, c = ${c}: z ${book.valueAtRisk} vs ${z}`);
      const density = book.expectedShortfall * (1 - c);
      t.ok(Math.abs(density - normalPdf(book.valueAtRisk)) <= 1e-13 * density, `${build}, c = ${c}: φ(z) ${density} vs ${normalPdf(book.valueAtRisk)}`);
    }
  }
});

t.test('xoshiro128**: the published first outputs of the state (1, 2, 3, 4)', async (t) => {
  const next = xoshiro128StarStar(Uint32Array.from([1, 2, 3, 4]));
  t.same(Array.from({ length: 10 }, next), [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597, 4258142804]);
});
