// What a calculate with options runs in the engine (api.md §15), on one core: each option held
// twice on kept scenarios, as asked (full revaluation) and at its delta (a copy of its
// underlying's unit), and two books compared, at delta and as asked (the nonlinearity and its
// error). ns per option position-scenarios; the answer is first checked against
// OP_SIMULATE_KEPT's on the written columns, bit for bit. A request holds at most 500 option
// positions (MAX_OPTIONS / 2), so this is its largest book.
import { ABI } from '../../src/engine/abi.js';
import { checkStatus, type EngineBook } from '../../src/engine/codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { type Engine } from '../../src/engine/ops.js';
import { mulberry32 } from '../../test/helpers/mulberry32.js';
import { median } from './stats.js';
import { checkPricedInPlace, drawnOptionMarket, keptSpec, optionHeader, simulateOptionsInput } from './option-market.js';

export interface OptionRequestFigures {
  options: number;
  underlyings: number;
  scenarios: number;
  build: string;
  request_ms: number;
  /** Per option position and scenario (each position is two columns: as asked and at delta). */
  request_ns_per_option_scenario: number;
}

export function benchOptionRequest(engine: Engine, optionCount: number, underlyings: number, scenarioCount: number, repeats: number): OptionRequestFigures {
  const market = drawnOptionMarket(underlyings, scenarioCount, optionCount);
  const { scenarios, blocks, kept, spots, options } = market;
  const header = optionHeader(market, [ABI.VALUATION_FULL, ABI.VALUATION_DELTA]);
  const m = options.length;
  const columns = underlyings + 2 * m;
  // Long and short options, as desks hold them (both tail lanes); at delta, a money delta of half
  // the spot per unit. The stock columns hold nothing: the figure is the options' alone.
  const rand = mulberry32(31);
  const size = options.map(() => (rand() < 0.7 ? 1 : -1) * (1 + rand()));
  const asked = Float64Array.from({ length: columns }, (_, i) => (i >= underlyings && i < underlyings + m ? size[i - underlyings]! : 0));
  const atDelta = Float64Array.from({ length: columns }, (_, i) => {
    const k = i - underlyings - m;
    return k >= 0 ? 0.5 * size[k]! * spots[options[k]![0]]! : 0;
  });
  const book = (e: Float64Array): EngineBook => ({ capital: 1, weights: e, exposures: e });
  const spec = encodeSpec(keptSpec(columns, scenarios, [book(atDelta), book(asked)], 'what_if'), 0, blocks);
  const input = simulateOptionsInput(header, spec);
  const times: number[] = [];
  let priced: Float64Array = new Float64Array(0);
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    priced = checkStatus(engine.call(ABI.OP_SIMULATE_OPTIONS, input, kept));
    times.push(performance.now() - t0);
  }
  checkPricedInPlace(engine, spec, checkStatus(engine.call(ABI.OP_OPTION_UNITS, header, kept)), priced, 'the request');
  const ms = median(times);
  return {
    options: m,
    underlyings,
    scenarios,
    build: engine.build,
    request_ms: ms,
    request_ns_per_option_scenario: (ms * 1e6) / (m * scenarios),
  };
}
