// Options priced where each block is (OP_SIMULATE_OPTIONS, what the service runs for an option
// book on kept scenarios) give the partial of OP_SIMULATE_KEPT on OP_OPTION_UNITS' written columns,
// bit for bit, on the four builds: drawn books of every valuation, both models, foreign underlyings,
// long and short positions.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { encodeSpec, type SimulationSpec } from '../../src/engine/codec.js';
import { bitJson } from '../helpers/bit-json.js';
import { fourEngines } from '../helpers/four-engines.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { gaussian } from '../helpers/price-series.js';

const ASSETS = 3;
const BLOCKS = 4;

function drawnBook(seed: number): { kept: number[]; options: number[]; m: number; weights: Float64Array } {
  const rand = mulberry32(seed);
  const units = Array.from({ length: ASSETS * ABI.BLOCK * BLOCKS }, () => Math.expm1(0.05 * gaussian(rand)));
  const m = 24;
  const options: number[] = [];
  for (let i = 0; i < m; i++) {
    const spot = 1 + 500 * rand();
    const underlying = Math.floor(rand() * ASSETS);
    options.push(
      underlying,
      [ABI.VALUATION_FULL, ABI.VALUATION_DELTA_GAMMA, ABI.VALUATION_DELTA][i % 3]!,
      rand() < 0.5 ? ABI.OPTION_CALL : ABI.OPTION_PUT,
      rand() < 0.5 ? ABI.MODEL_BLACK_SCHOLES : ABI.MODEL_BLACK76,
      spot,
      spot * Math.exp(0.5 * gaussian(rand)),
      0.05 + 2 * rand(),
      0.03,
      0.01,
      i % 7 === 0 ? 0 : 3 * rand(),
      i % 4 === 1 ? (underlying + 1) % ASSETS : ABI.OPTION_NO_FX,
    );
  }
  // The kept layout with no tails kept ([count, units, 0 assets, k 0]): every column's computed.
  const kept = [units.length, ...units, 0, 0];
  const weights = Float64Array.from({ length: ASSETS + m }, () => 1e4 * (2 * rand() - 1));
  return { kept, options, m, weights };
}

/** A spec over the assets and the option columns: the kept units are all it prices. */
function specOver(columns: number, weights: Float64Array): SimulationSpec {
  return {
    method: 'monte_carlo_normal',
    scenarios: BLOCKS * ABI.BLOCK,
    mean: new Float64Array(columns),
    factor: new Float64Array(columns),
    factorColumns: 1,
    returns: new Float64Array(0),
    rebalanced: false,
    books: [{ capital: 1, weights, exposures: weights }],
    comparison: 'none',
    horizon: 10,
    confidence: 0.99,
    degreesOfFreedom: 5,
    seed: 7,
    antithetic: false,
    importanceSampling: false,
    histogramBins: 20,
  };
}

t.test('options priced where each block is: the written columns partial, four builds', async (t) => {
  const builds = fourEngines();
  for (const seed of [11, 12, 13]) {
    const { kept, options, m, weights } = drawnBook(seed);
    const header = [ASSETS, 10, m, ...options];
    const spec = encodeSpec(specOver(ASSETS + m, weights), 0, BLOCKS);
    const lead = Float64Array.from(kept);
    for (const e of builds) {
      const columns = e.call(ABI.OP_OPTION_UNITS, Float64Array.from(header), lead);
      t.equal(columns[0], 0, `${e.build} ${seed}: columns written`);
      const want = e.call(ABI.OP_SIMULATE_KEPT, spec, columns.subarray(1));
      const got = e.call(ABI.OP_SIMULATE_OPTIONS, Float64Array.from([...header, ...spec]), lead);
      t.equal(got[0], 0, `${e.build} ${seed}: priced`);
      t.equal(bitJson(Array.from(got)), bitJson(Array.from(want)), `${e.build} ${seed}: the written columns' partial`);
      const first = builds[0]!.call(ABI.OP_SIMULATE_OPTIONS, Float64Array.from([...header, ...spec]), lead);
      t.equal(bitJson(Array.from(got)), bitJson(Array.from(first)), `${e.build} ${seed}: = ${builds[0]!.build}`);
    }
  }
});
