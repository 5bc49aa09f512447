// The drawn market the option benches price (bench/lib/options-bench.ts, option-request-bench.ts):
// kept units of `underlyings` over whole blocks of scenarios, and options on them, as the engine
// reads them, from one seed.
import { ABI } from '../../src/engine/abi.js';
import { encodeFinalize, type EngineBook } from '../../src/engine/codec.js';
import { type SimulationSpec } from '../../src/engine/spec-codec.js';
import { type Engine } from '../../src/engine/ops.js';
import { sameBits } from './same-bits.js';
import { mulberry32 } from '../../test/helpers/mulberry32.js';
import { gaussian } from '../../test/helpers/price-series.js';
import { keptTails } from '../../test/helpers/kept-tails.js';

export const HORIZON_DAYS = 10;
const CONFIDENCE = 0.99;

/** One option's terms: [underlying, call 1 / put 0, strike, volatility, rate, dividend yield, τ]. */
export type OptionTerms = [number, number, number, number, number, number, number];

export interface OptionMarket {
  scenarios: number;
  blocks: number;
  /** e^R − 1 per underlying, [underlying][scenario]. */
  plain: Float64Array;
  /** The kept layout (OP_UNITS's answer): [count, units per block asset-major, n, k, each underlying's k smallest units, each one's k smallest negated]. */
  kept: Float64Array;
  spots: number[];
  options: OptionTerms[];
}

/**
 * `optionCount` options on `underlyings` over `scenarioCount` scenarios rounded down to whole
 * blocks. The kept units carry their tails, as OP_UNITS answers them and a calculate passes them
 * on: the option columns' tails are computed at pricing, seeded from their underlyings'.
 */
export function drawnOptionMarket(underlyings: number, scenarioCount: number, optionCount: number): OptionMarket {
  const scenarios = Math.max(1, Math.floor(scenarioCount / ABI.BLOCK)) * ABI.BLOCK;
  const rand = mulberry32(2024);
  const plain = new Float64Array(underlyings * scenarios).map(() => Math.expm1(0.03 * gaussian(rand)));
  const blocks = scenarios / ABI.BLOCK;
  const k = tailCount(scenarios);
  const kept = new Float64Array(3 + plain.length + 2 * underlyings * k);
  kept[0] = plain.length;
  for (let b = 0; b < blocks; b++)
    for (let a = 0; a < underlyings; a++)
      kept.set(plain.subarray(a * scenarios + b * ABI.BLOCK, a * scenarios + (b + 1) * ABI.BLOCK), 1 + (b * underlyings + a) * ABI.BLOCK);
  kept.set(keptTails(kept.subarray(1, 1 + plain.length), underlyings, k), 1 + plain.length);
  const spots = Array.from({ length: underlyings }, () => 20 + 300 * rand());
  const options = Array.from({ length: optionCount }, (_, i): OptionTerms => {
    const u = i % underlyings;
    return [u, rand() < 0.5 ? 1 : 0, spots[u]! * (0.7 + 0.6 * rand()), 0.1 + 0.5 * rand(), 0.03, 0.01, 0.05 + 2 * rand()];
  });
  return { scenarios, blocks, plain, kept, spots, options };
}

/** OP_OPTION_UNITS' header: [underlyings, horizon, columns, each option's fields at each valuation in turn]. */
export function optionHeader(market: OptionMarket, valuations: number[]): Float64Array {
  const fields = valuations.flatMap((valuation) =>
    market.options.flatMap(([u, call, k, vol, r, q, tau]) => [
      u,
      valuation,
      call ? ABI.OPTION_CALL : ABI.OPTION_PUT,
      ABI.MODEL_BLACK_SCHOLES,
      market.spots[u]!,
      k,
      vol,
      r,
      q,
      tau,
      ABI.OPTION_NO_FX,
    ]),
  );
  return Float64Array.from([market.spots.length, HORIZON_DAYS, valuations.length * market.options.length, ...fields]);
}

/**
 * The tail count k of `scenarios` at CONFIDENCE, by the engine's rule (`rank_of_level`): ⌈(1 − c)·n⌉,
 * a product within 1e-9 of an integer (relative, above 1) taken as it. The engine refuses kept tails
 * of any other k.
 */
function tailCount(scenarios: number): number {
  const p = (1 - CONFIDENCE) * scenarios;
  const nearest = Math.round(p);
  const rank = Math.abs(p - nearest) <= 1e-9 * Math.max(p, 1) ? nearest : Math.ceil(p);
  return Math.min(Math.max(rank, 1), Math.max(scenarios, 1));
}

/** A buy-and-hold spec over kept columns (the units and then the option columns): they are all it prices. */
export function keptSpec(columns: number, scenarios: number, books: EngineBook[], comparison: SimulationSpec['comparison']): SimulationSpec {
  return {
    method: 'monte_carlo_normal',
    scenarios,
    mean: new Float64Array(columns),
    factor: new Float64Array(columns),
    factorColumns: 1,
    returns: new Float64Array(0),
    rebalanced: false,
    books,
    comparison,
    horizon: HORIZON_DAYS,
    confidence: CONFIDENCE,
    degreesOfFreedom: 5,
    seed: 1,
    antithetic: false,
    importanceSampling: false,
    histogramBins: 50,
  };
}

/** OP_SIMULATE_OPTIONS' input after its lead: the options' header, then the spec. */
export function simulateOptionsInput(header: Float64Array, spec: Float64Array): Float64Array {
  const input = new Float64Array(header.length + spec.length);
  input.set(header);
  input.set(spec, header.length);
  return input;
}

/**
 * Refuses a timing whose OP_SIMULATE_OPTIONS answer `priced` does not give the figures of
 * OP_SIMULATE_KEPT's on the written columns (OP_OPTION_UNITS' answer `written`), bit for bit: a
 * fast wrong pricer fails. The partials are compared through finalize: seeded, a column's tail
 * holds the same values in another order, and a tail is a set.
 */
export function checkPricedInPlace(engine: Engine, spec: Float64Array, written: Float64Array, priced: Float64Array, what: string): void {
  const reference = engine.call(ABI.OP_SIMULATE_KEPT, spec, written.subarray(1));
  const figures = (partial: Float64Array) => engine.call(ABI.OP_FINALIZE, encodeFinalize([partial]));
  const [want, got] = [figures(reference), figures(priced)];
  if (want[0] !== 0 || !sameBits(got, want)) throw new Error(`${what} priced block by block differs from the written columns priced`);
}
