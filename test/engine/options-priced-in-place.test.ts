// Options priced where each block is (OP_SIMULATE_OPTIONS, what the service runs for an option
// book on kept scenarios) give the partial of OP_SIMULATE_KEPT on OP_OPTION_UNITS' written columns,
// bit for bit, on the four builds: drawn books (test/helpers/drawn-option-book.ts) of every valuation,
// both models, foreign underlyings, long and short positions. With the kept tails a calculate
// passes on, full revaluations' tails are seeded from them and hold the same values in another
// order (a tail is a set): the figures after finalize are the same, bit for bit.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { encodeFinalize } from '../../src/engine/codec.js';
import { encodeSpec, type SimulationSpec } from '../../src/engine/spec-codec.js';
import { bitJson } from '../helpers/bit-json.js';
import { canonicalPartial } from '../helpers/canonical-partial.js';
import { keptTails } from '../helpers/kept-tails.js';
import { fourEngines } from '../helpers/four-engines.js';
import { type Engine } from '../../src/engine/ops.js';
import { drawnOptionBook } from '../helpers/drawn-option-book.js';

const ASSETS = 3;
const BLOCKS = 4;

const OPTIONS = 24;

function drawnBook(seed: number): { kept: number[]; options: number[]; weights: Float64Array } {
  const { units, options, rand } = drawnOptionBook(seed, ASSETS, BLOCKS, OPTIONS);
  // The kept layout with no tails kept ([count, units, 0 assets, k 0]): every column's computed.
  const kept = [units.length, ...units, 0, 0];
  const weights = Float64Array.from({ length: ASSETS + OPTIONS }, () => 1e4 * (2 * rand() - 1));
  return { kept, options, weights };
}

/** The tail count of the spec's scenarios at its confidence, 0.99: ⌈0.01 · 1,024⌉. */
const K = Math.ceil(0.01 * BLOCKS * ABI.BLOCK);

/** The kept layout with the units' tails, as OP_UNITS answers it. */
function withTails(kept: number[]): Float64Array {
  const units = kept.slice(1, 1 + kept[0]!);
  return Float64Array.from([units.length, ...units, ...keptTails(units, ASSETS, K)]);
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

/** The drawn book of `seed` as both ops read it: OP_OPTION_UNITS' header, the spec and the kept lead. */
function drawnCase(seed: number, tailed: boolean): { header: number[]; spec: Float64Array; lead: Float64Array } {
  const { kept, options, weights } = drawnBook(seed);
  const header = [ASSETS, 10, OPTIONS, ...options];
  const spec = encodeSpec(specOver(ASSETS + OPTIONS, weights), 0, BLOCKS);
  return { header, spec, lead: tailed ? withTails(kept) : Float64Array.from(kept) };
}

/** On engine `e`: OP_OPTION_UNITS' answer, OP_SIMULATE_KEPT's partial on it, and OP_SIMULATE_OPTIONS'. */
function bothPaths(e: Engine, c: ReturnType<typeof drawnCase>): { columns: Float64Array; want: Float64Array; got: Float64Array } {
  const columns = e.call(ABI.OP_OPTION_UNITS, Float64Array.from(c.header), c.lead);
  const want = e.call(ABI.OP_SIMULATE_KEPT, c.spec, columns.subarray(1));
  const got = e.call(ABI.OP_SIMULATE_OPTIONS, Float64Array.from([...c.header, ...c.spec]), c.lead);
  return { columns, want, got };
}

t.test('options priced where each block is: the written columns partial, four builds', async (t) => {
  const builds = fourEngines();
  for (const seed of [11, 12, 13]) {
    const c = drawnCase(seed, false);
    for (const e of builds) {
      const { columns, want, got } = bothPaths(e, c);
      t.equal(columns[0], 0, `${e.build} ${seed}: columns written`);
      t.equal(got[0], 0, `${e.build} ${seed}: priced`);
      t.equal(bitJson(Array.from(got)), bitJson(Array.from(want)), `${e.build} ${seed}: the written columns' partial`);
      const first = builds[0]!.call(ABI.OP_SIMULATE_OPTIONS, Float64Array.from([...c.header, ...c.spec]), c.lead);
      t.equal(bitJson(Array.from(got)), bitJson(Array.from(first)), `${e.build} ${seed}: = ${builds[0]!.build}`);
    }
  }
});

t.test('seeded from the kept tails: the written columns partial up to the order of tail values, four builds', async (t) => {
  const builds = fourEngines();
  for (const seed of [21, 22, 23]) {
    const c = drawnCase(seed, true);
    const figures = (partial: Float64Array) => bitJson(Array.from(builds[0]!.call(ABI.OP_FINALIZE, encodeFinalize([partial]))));
    const canonical = (partial: Float64Array) => bitJson(Array.from(canonicalPartial(partial.subarray(0))));
    let first: string | undefined;
    for (const e of builds) {
      const { columns, want, got } = bothPaths(e, c);
      t.equal(columns[0], 0, `${e.build} ${seed}: columns written`);
      t.equal(got[0], 0, `${e.build} ${seed}: priced`);
      t.equal(canonical(got), canonical(want), `${e.build} ${seed}: the written columns' partial, tails as sets`);
      t.equal(figures(got), figures(want), `${e.build} ${seed}: the written columns' figures`);
      first ??= canonical(got);
      t.equal(canonical(got), first, `${e.build} ${seed}: = ${builds[0]!.build}`);
    }
  }
});
