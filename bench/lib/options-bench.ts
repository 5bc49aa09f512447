// Full revaluation of European options on every scenario (api.md §15) on one core against
// vectorised NumPy/SciPy (scipy.special.ndtr, bench/options_baseline.py) on the same scenarios: ns
// per option-scenario and the ratio, medians. The ratio times the revaluation alone, as the
// baseline does it (OP_OPTION_UNITS: every option's value on every scenario, written out); beside it,
// interleaved, what the service runs for an option book on kept scenarios (OP_SIMULATE_OPTIONS: the
// same revaluation, the book's P&L, every column's tails and the worst rows, nothing written out).
// Before a ratio counts, the columns' P&L sum must be NumPy's, and the book's answer OP_SIMULATE_KEPT's
// on the written columns, bit for bit, so a fast wrong pricer fails. Issue 31's size: 1,000 options on 100 underlyings ×
// 100,000 scenarios.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ABI } from '../../src/engine/abi.js';
import { checkStatus, encodeSpec, type SimulationSpec } from '../../src/engine/codec.js';
import { type Engine } from '../../src/engine/ops.js';
import { ROOT } from '../../src/paths.js';
import { mulberry32 } from '../../test/helpers/mulberry32.js';
import { gaussian } from '../../test/helpers/price-series.js';

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
  /** OP_SIMULATE_OPTIONS, what the service runs: the revaluation, the book's P&L, every column's tails and the worst rows. */
  book_ms: number;
  book_ns_per_option_scenario: number;
}

const HORIZON_DAYS = 10;

/** A buy-and-hold spec over `columns` kept columns (the units and then the options): they are all it prices. */
function keptSpec(columns: number, scenarios: number, exposures: Float64Array): SimulationSpec {
  return {
    method: 'monte_carlo_normal',
    scenarios,
    mean: new Float64Array(columns),
    factor: new Float64Array(columns),
    factorColumns: 1,
    returns: new Float64Array(0),
    rebalanced: false,
    books: [{ capital: 1, weights: exposures, exposures }],
    comparison: 'none',
    horizon: HORIZON_DAYS,
    confidence: 0.99,
    degreesOfFreedom: 5,
    seed: 1,
    antithetic: false,
    importanceSampling: false,
    histogramBins: 50,
  };
}

const sameBits = (a: Float64Array, b: Float64Array) =>
  a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export function benchOptionRevaluation(engine: Engine, optionCount: number, underlyings: number, scenarioCount: number, repeats: number): OptionFigures {
  // Whole blocks, rounded down: 100,000 rounded up (100,096) × 1,000 options is past the engine's
  // MAX_OPTION_SCENARIOS (1e8), so the size runs as 99,840 scenarios.
  const scenarios = Math.max(1, Math.floor(scenarioCount / ABI.BLOCK)) * ABI.BLOCK;
  const rand = mulberry32(2024);
  const plain = new Float64Array(underlyings * scenarios).map(() => Math.expm1(0.03 * gaussian(rand)));
  // The kept layout (OP_UNITS's answer): [count, units per block asset-major, n 0, k 0] — no
  // tails, so the option columns' are computed at pricing, as a live book's appended columns are.
  const blocks = scenarios / ABI.BLOCK;
  const kept = new Float64Array(3 + plain.length);
  kept[0] = plain.length;
  for (let b = 0; b < blocks; b++)
    for (let a = 0; a < underlyings; a++)
      kept.set(plain.subarray(a * scenarios + b * ABI.BLOCK, a * scenarios + (b + 1) * ABI.BLOCK), 1 + (b * underlyings + a) * ABI.BLOCK);
  const spots = Array.from({ length: underlyings }, () => 20 + 300 * rand());
  const options = Array.from({ length: optionCount }, (_, i) => {
    const u = i % underlyings;
    return [u, rand() < 0.5 ? 1 : 0, spots[u]! * (0.7 + 0.6 * rand()), 0.1 + 0.5 * rand(), 0.03, 0.01, 0.05 + 2 * rand()];
  });
  const fields = options.flatMap(([u, call, k, vol, r, q, tau]) => [
    u!,
    ABI.VALUATION_FULL,
    call ? ABI.OPTION_CALL : ABI.OPTION_PUT,
    ABI.MODEL_BLACK_SCHOLES,
    spots[u!]!,
    k!,
    vol!,
    r!,
    q!,
    tau!,
    ABI.OPTION_NO_FX,
  ]);
  const header = Float64Array.from([underlyings, HORIZON_DAYS, optionCount, ...fields]);
  // One of each option: the book's P&L is every option's added up, as the baseline adds them.
  const columns = underlyings + optionCount;
  const exposures = Float64Array.from({ length: columns }, (_, i) => (i < underlyings ? 0 : 1));
  const spec = encodeSpec(keptSpec(columns, scenarios, exposures), 0, blocks);
  const input = new Float64Array(header.length + spec.length);
  input.set(header);
  input.set(spec, header.length);
  // The two interleaved: the revaluation alone, then the service's pricing of the book.
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
  const reference = engine.call(ABI.OP_SIMULATE_KEPT, spec, written.subarray(1));
  if (!sameBits(priced, reference)) throw new Error('options priced block by block differ from the written columns priced');
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
  };
}
