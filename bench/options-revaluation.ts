// `node dist/bench/options-revaluation.js`: full revaluation of European options on every scenario
// (OP_OPTION_UNITS, api.md §15) on one core against vectorised NumPy/SciPy (scipy.special.ndtr) on
// the same scenarios; ns per option-scenario and the ratio, medians. The size is 1,000
// options on 100 underlyings × 100,000 scenarios (BENCH_OPTIONS, BENCH_UNDERLYINGS, BENCH_SCENARIOS).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ABI } from '../src/engine/abi.js';
import { checkStatus } from '../src/engine/codec.js';
import { instantiateEngine, resolveEngineSource } from '../src/engine/load.js';
import { ROOT } from '../src/paths.js';
import { mulberry32 } from '../test/helpers/mulberry32.js';
import { gaussian } from '../test/helpers/price-series.js';

const OPTIONS = Number(process.env.BENCH_OPTIONS ?? 1000);
const UNDERLYINGS = Number(process.env.BENCH_UNDERLYINGS ?? 100);
const SCENARIOS = Math.ceil(Number(process.env.BENCH_SCENARIOS ?? 100_000) / ABI.BLOCK) * ABI.BLOCK;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const HORIZON = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  const rand = mulberry32(2024);
  const plain = new Float64Array(UNDERLYINGS * SCENARIOS).map(() => Math.expm1(0.03 * gaussian(rand)));
  // The engine's layout: per block of scenarios, asset-major.
  const blocks = SCENARIOS / ABI.BLOCK;
  const units = new Float64Array(plain.length);
  for (let b = 0; b < blocks; b++)
    for (let a = 0; a < UNDERLYINGS; a++)
      units.set(plain.subarray(a * SCENARIOS + b * ABI.BLOCK, a * SCENARIOS + (b + 1) * ABI.BLOCK), (b * UNDERLYINGS + a) * ABI.BLOCK);
  const spots = Array.from({ length: UNDERLYINGS }, () => 20 + 300 * rand());
  const options = Array.from({ length: OPTIONS }, (_, i) => {
    const u = i % UNDERLYINGS;
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
  ]);
  // Spread would overflow the stack at 10^7 values: set the parts.
  const input = new Float64Array(1 + units.length + ABI.OPTION_HEADER_LEN + fields.length);
  input[0] = units.length;
  input.set(units, 1);
  input.set([UNDERLYINGS, HORIZON, OPTIONS, ...fields], 1 + units.length);
  const engine = instantiateEngine(resolveEngineSource(process.env.ENGINE === 'wasm' ? 'wasm' : 'native'));
  const times: number[] = [];
  let out: ReturnType<typeof checkStatus> | undefined;
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    out = checkStatus(engine.call(ABI.OP_OPTION_UNITS, input));
    times.push(performance.now() - t0);
  }
  // Every option column's values added up, as the baseline adds its P&L.
  let checksum = 0;
  const width = (UNDERLYINGS + OPTIONS) * ABI.BLOCK;
  for (let b = 0; b < blocks; b++) for (let k = UNDERLYINGS * ABI.BLOCK; k < width; k++) checksum += out![2 + b * width + k]!;
  const file = path.join(tmpdir(), `options-bench-${process.pid}.f64`);
  writeFileSync(file, plain);
  const job = { units: file, assets: UNDERLYINGS, scenarios: SCENARIOS, spots, options, dt: HORIZON / 252, repeats: REPEATS };
  const py = spawnSync('python3', [path.join(ROOT, 'bench/options_baseline.py')], {
    input: JSON.stringify(job),
    encoding: 'utf8',
    env: { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' },
  });
  const cells = OPTIONS * SCENARIOS;
  const ms = median(times);
  console.log(
    `${OPTIONS} options on ${UNDERLYINGS} underlyings × ${SCENARIOS.toLocaleString('en-US')} scenarios, full revaluation, one core, median of ${REPEATS}`,
  );
  console.log(`engine (${engine.build}) ${ms.toFixed(1)} ms, ${((ms * 1e6) / cells).toFixed(1)} ns per option-scenario`);
  if (py.status !== 0) {
    console.log(`NumPy/SciPy baseline unavailable: ${py.stderr.slice(-300)}`);
    return;
  }
  const base = JSON.parse(py.stdout) as { median_ms: number; checksum: number; numpy: string; scipy: string };
  console.log(
    `NumPy ${base.numpy} / SciPy ${base.scipy} (ndtr) ${base.median_ms.toFixed(1)} ms, ${((base.median_ms * 1e6) / cells).toFixed(1)} ns per option-scenario`,
  );
  console.log(`ratio NumPy/engine ${(base.median_ms / ms).toFixed(2)}; P&L sums ${checksum.toExponential(9)} vs ${base.checksum.toExponential(9)}`);
}

main();
