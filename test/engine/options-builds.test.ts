// Option revaluation (OP_OPTION_UNITS, OP_OPTION_GREEKS, api.md §15) is the same bits on the four
// builds, over drawn books: calls and puts, both models, expired and long-dated, σ up to 5, strikes
// far in and out of the money, every valuation; every value finite.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { bitJson } from '../helpers/bit-json.js';
import { fourEngines } from '../helpers/four-engines.js';
import { drawnOptionBook } from '../helpers/drawn-option-book.js';

const ASSETS = 3;
const BLOCKS = 3;

const OPTIONS = 40;

const drawn = (seed: number) => drawnOptionBook(seed, ASSETS, BLOCKS, OPTIONS);

t.test('option columns and Greeks: four builds, one answer', async (t) => {
  const builds = fourEngines();
  for (const seed of [1, 2, 3]) {
    const { units, options } = drawn(seed);
    // The drawn units as kept scenarios with no tails kept ([count, units, 0 assets, k 0]).
    const kept = [units.length, ...units, 0, 0];
    const columns = Float64Array.from([kept.length, ...kept, ASSETS, 10, OPTIONS, ...options]);
    const greeks = Float64Array.from([OPTIONS, ...options]);
    for (const [op, input, name] of [
      [ABI.OP_OPTION_UNITS, columns, 'columns'],
      [ABI.OP_OPTION_GREEKS, greeks, 'greeks'],
    ] as const) {
      const outputs = builds.map((e) => e.call(op, input));
      t.equal(outputs[0]![0], 0, `${name} ${seed}: success`);
      t.ok(outputs[0]!.every(Number.isFinite), `${name} ${seed}: every value finite`);
      for (const [k, out] of outputs.entries()) t.equal(bitJson(Array.from(out)), bitJson(Array.from(outputs[0]!)), `${name} ${seed}: ${builds[k]!.build} = ${builds[0]!.build}`);
    }
  }
});

t.test('bad option terms are refused, not priced', async (t) => {
  const engine = instantiateEngine(resolveEngineSource('wasm'));
  const { options } = drawn(4);
  const one = options.slice(0, ABI.OPTION_FIELDS);
  for (const [field, value] of [
    [5, 0],
    [6, 0],
    [6, 5.01],
    [9, -1],
    [4, Number.NaN],
  ] as const) {
    const bad = [...one];
    bad[field] = value;
    const out = engine.call(ABI.OP_OPTION_GREEKS, Float64Array.from([1, ...bad]));
    t.equal(out[0], ABI.ERR_INVALID_INPUT, `field ${field} = ${value} refused`);
  }
});

t.test('option columns past double precision are an overflow on every build and entry point', async (t) => {
  const builds = fourEngines();
  const { units } = drawn(5);
  const kept = Float64Array.from([units.length, ...units, 0, 0]);
  // [underlying, valuation, type, model, spot, strike, σ, r, q, τ, fx]: Γ = φ/(S·σ√τ) past 1e308
  // (delta-gamma at a spot of 1e-303), and a forward S·e^{−qτ} past it (full, 1e300, q −1, 100 y).
  const option = (valuation: number, spot: number, vol: number, q: number, tau: number) => [0, valuation, ABI.OPTION_CALL, ABI.MODEL_BLACK_SCHOLES, spot, spot, vol, 0, q, tau, ABI.OPTION_NO_FX];
  const cases = [
    ['delta-gamma at 1e-303', option(ABI.VALUATION_DELTA_GAMMA, 1e-303, 1e-6, 0, 1 / 365)],
    ['full at 1e300, q −1', option(ABI.VALUATION_FULL, 1e300, 0.2, -1, 100)],
  ] as const;
  for (const engine of builds) {
    for (const [name, fields] of cases) {
      const rest = Float64Array.from([ASSETS, 10, 1, ...fields]);
      const joined = Float64Array.from([kept.length, ...kept, ...rest]);
      t.equal(engine.call(ABI.OP_OPTION_UNITS, joined)[0], ABI.ERR_OVERFLOW, `${engine.build} ${name}: call`);
      t.equal(engine.call(ABI.OP_OPTION_UNITS, rest, kept)[0], ABI.ERR_OVERFLOW, `${engine.build} ${name}: with a lead`);
      const shared = new Float64Array(new SharedArrayBuffer(kept.byteLength));
      shared.set(kept);
      t.equal(engine.callShared(ABI.OP_OPTION_UNITS, rest, shared)[0], ABI.ERR_OVERFLOW, `${engine.build} ${name}: into shared memory`);
      t.equal(engine.call(ABI.OP_OPTION_GREEKS, Float64Array.from([1, ...fields]))[0], ABI.ERR_OVERFLOW, `${engine.build} ${name}: its Greeks`);
    }
  }
});
