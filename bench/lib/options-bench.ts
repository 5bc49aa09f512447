// Full revaluation of European options on every scenario (api.md §15) on one core against
// vectorised NumPy/SciPy (scipy.special.ndtr, bench/options_baseline.py) on the same scenarios: ns
// per option-scenario and two ratios. The first times the revaluation written out
// (OP_OPTION_UNITS: every option's value on every scenario, an 800 MB answer at the size,
// which the tests check the service's path against); the second, interleaved with it, one book of
// these options priced on kept scenarios, the path a calculate takes (OP_SIMULATE_OPTIONS: the same
// revaluation, the book's P&L, every column's tails and the worst rows, nothing written out; a
// service request prices each option at its delta too: option-request-bench.ts). The baseline sums
// every option's P&L and holds no column, so it does less than either.
// Before a ratio counts, the columns' P&L sum must be NumPy's, and the book's answer OP_SIMULATE_KEPT's
// on the written columns, bit for bit, so a fast wrong pricer fails. Issue 31's size: 1,000 options on 100 underlyings ×
// 100,000 scenarios.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ABI } from '../../src/engine/abi.js';
import { checkStatus } from '../../src/engine/codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { type Engine } from '../../src/engine/ops.js';
import { ROOT } from '../../src/paths.js';
import { median } from './stats.js';
import { checkPricedInPlace, drawnOptionMarket, HORIZON_DAYS, keptSpec, optionHeader, simulateOptionsInput } from './option-market.js';

export interface OptionFigures {
  options: number;
  underlyings: number;
  scenarios: number;
  build: string;
  engine_ms: number;
  engine_ns_per_option_scenario: number;
  numpy_ms: number;
  numpy_ns_per_option_scenario: number;
  /** NumPy ms / engine ms (higher is faster; issue 31 asks ≥ 3). */
  numpy_over_engine: number;
  /** OP_SIMULATE_OPTIONS on one book of the options: the revaluation, the book's P&L, every column's tails and the worst rows. */
  book_ms: number;
  book_ns_per_option_scenario: number;
  /** NumPy ms / the book's ms: the service's own path against the baseline. */
  numpy_over_book: number;
}

export function benchOptionRevaluation(engine: Engine, optionCount: number, underlyings: number, scenarioCount: number, repeats: number): OptionFigures {
  // Whole blocks, rounded down: 100,000 rounded up (100,096) × 1,000 options is past the engine's
  // MAX_OPTION_SCENARIOS (1e8), so the size runs as 99,840 scenarios.
  const market = drawnOptionMarket(underlyings, scenarioCount, optionCount);
  const { scenarios, blocks, plain, kept, spots, options } = market;
  const header = optionHeader(market, [ABI.VALUATION_FULL]);
  // One of each option: the book's P&L is every option's added up, as the baseline adds them.
  const columns = underlyings + optionCount;
  const exposures = Float64Array.from({ length: columns }, (_, i) => (i < underlyings ? 0 : 1));
  const spec = encodeSpec(keptSpec(columns, scenarios, [{ capital: 1, weights: exposures, exposures }], 'none'), 0, blocks);
  const input = simulateOptionsInput(header, spec);
  // The two interleaved: the revaluation alone, then the book priced on kept scenarios.
  const times: number[] = [];
  const pricedTimes: number[] = [];
  let written: Float64Array = new Float64Array(0);
  let priced: Float64Array = new Float64Array(0);
  for (let i = 0; i < repeats; i++) {
    // The last columns let go first: at the size each answer is 800 MB.
    written = new Float64Array(0);
    let t0 = performance.now();
    written = checkStatus(engine.call(ABI.OP_OPTION_UNITS, header, kept));
    times.push(performance.now() - t0);
    t0 = performance.now();
    priced = checkStatus(engine.call(ABI.OP_SIMULATE_OPTIONS, input, kept));
    pricedTimes.push(performance.now() - t0);
  }
  checkPricedInPlace(engine, spec, written, priced, 'the book of options');
  // Every option column's values added up, as the baseline adds its P&L ([0, count, units…]).
  let checksum = 0;
  const width = columns * ABI.BLOCK;
  for (let b = 0; b < blocks; b++) for (let k = underlyings * ABI.BLOCK; k < width; k++) checksum += written[2 + b * width + k]!;
  const file = path.join(tmpdir(), `options-bench-${process.pid}.f64`);
  writeFileSync(file, plain);
  const job = { units: file, assets: underlyings, scenarios, spots, options, dt: HORIZON_DAYS / 252, repeats };
  // The baseline's own command clears the variables that hold NumPy to older kernels.
  const env = { ...process.env };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const py = spawnSync('python3', [path.join(ROOT, 'bench/options_baseline.py')], {
    input: JSON.stringify(job),
    encoding: 'utf8',
    env: { ...env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' },
  });
  rmSync(file, { force: true });
  if (py.status !== 0) throw new Error(`NumPy/SciPy options baseline failed: ${py.stderr.slice(-300)}`);
  const base = JSON.parse(py.stdout) as { median_ms: number; checksum: number };
  if (!(Math.abs(checksum - base.checksum) <= 1e-9 * Math.max(1, Math.abs(base.checksum))))
    throw new Error(`option P&L sums disagree: engine ${checksum} vs NumPy ${base.checksum}`);
  const cells = optionCount * scenarios;
  const ms = median(times);
  const pricedMs = median(pricedTimes);
  return {
    options: optionCount,
    underlyings,
    scenarios,
    build: engine.build,
    engine_ms: ms,
    engine_ns_per_option_scenario: (ms * 1e6) / cells,
    numpy_ms: base.median_ms,
    numpy_ns_per_option_scenario: (base.median_ms * 1e6) / cells,
    numpy_over_engine: base.median_ms / ms,
    book_ms: pricedMs,
    book_ns_per_option_scenario: (pricedMs * 1e6) / cells,
    numpy_over_book: base.median_ms / pricedMs,
  };
}
