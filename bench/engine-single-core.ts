// Single-core engine time for 1,000,000 simulations × 10 assets (buy-and-hold, 99 %, 10 days) on
// each build, interleaved A/B/C, medians of repeated runs. Every run's answer is checked against
// the WASM simd result (bit-identical), so a fast wrong build fails. Run: npm run bench:engine
import { createReadStream } from 'node:fs';
import { readCsv } from '../src/dataset/csv-reader.js';
import { selectColumns } from '../src/dataset/dataset.js';
import { DirectExecutor } from '../src/engine/direct-executor.js';
import { encodeSpec } from '../src/engine/codec.js';
import { instantiateEngine, resolveEngineSource, type EngineChoice } from '../src/engine/load.js';
import { Op } from '../src/engine/ops.js';
import { NativeEngine } from '../src/engine/native-engine.js';
import { estimateModel, simulationSpec } from '../src/calc/risk-calculation.js';
import { blockCount } from '../src/calc/plan.js';
import path from 'node:path';
import { ROOT } from '../src/engine/paths.js';

const SIMULATIONS = Number(process.env.BENCH_SIMULATIONS ?? 1_000_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dataset = await readCsv(createReadStream(path.join(ROOT, 'test/fixtures/prices_wide_sample.csv')), { maxSymbols: 5000 });
  const builds: [string, EngineChoice][] = [
    ['wasm-simd128', 'wasm'],
    ['wasm-scalar', 'wasm-scalar'],
    ['native', 'native'],
  ];
  const engines = builds.map(([name, choice]) => ({ name, engine: instantiateEngine(resolveEngineSource(choice)) }));
  engines.push({ name: 'native-x86-64', engine: NativeEngine.baseline() });
  const est = await estimateModel(new DirectExecutor(engines[0]!.engine), selectColumns(dataset, SYMBOLS), dataset.dates.length, SYMBOLS.length, {
    lookback: 0,
    zeroDrift: false,
    ewmaLambda: null,
  });
  const spec = simulationSpec(
    {
      method: 'monte_carlo_normal',
      rebalanced: false,
      portfolioValue: 1_000_000,
      weights: new Float64Array(SYMBOLS.length).fill(1 / SYMBOLS.length),
      horizon: 10,
      confidence: 0.99,
      simulations: SIMULATIONS,
      degreesOfFreedom: 5,
      seed: 1,
      antithetic: false,
      zeroDrift: false,
      histogramBins: 50,
    },
    est,
  );
  const input = encodeSpec(spec, 0, blockCount(SIMULATIONS));
  const times = new Map<string, number[]>(engines.map((e) => [e.name, []]));
  let reference: Float64Array | null = null;
  for (let r = 0; r < REPEATS; r++) {
    for (const { name, engine } of engines) {
      const start = performance.now();
      const out = engine.call(Op.run, input);
      times.get(name)!.push(performance.now() - start);
      reference ??= out;
      if (out.length !== reference.length || out.some((x, i) => !Object.is(x, reference![i]))) {
        throw new Error(`${name} disagrees with wasm-simd128`);
      }
    }
  }
  console.log(`${SIMULATIONS.toLocaleString('en-US')} simulations × ${SYMBOLS.length} assets, buy-and-hold, 99 %, 10 days; one core; median of ${REPEATS}`);
  for (const [name, ts] of times) console.log(`${name.padEnd(14)} ${median(ts).toFixed(1).padStart(8)} ms`);
  const simd = median(times.get('wasm-simd128')!);
  console.log(
    `ratios: wasm-scalar/wasm-simd ${(median(times.get('wasm-scalar')!) / simd).toFixed(2)}, wasm-simd/native-x86-64 ${(simd / median(times.get('native-x86-64')!)).toFixed(2)}, wasm-simd/native (host CPU) ${(simd / median(times.get('native')!)).toFixed(2)}`,
  );
  console.log('results: bit-identical across builds');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
