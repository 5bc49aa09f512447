// `npm run bench:engine`: single-core engine time for 1,000,000 simulations × 10 assets
// (buy-and-hold, 99 %, 10 days) on each build, interleaved, medians; benchWorkload checks that all
// builds return bit-identical results.
import { DirectExecutor } from '../src/engine/direct-executor.js';
import { benchWorkload, engines } from './lib/engine-bench.js';
import { prepare, workloads } from './lib/workloads.js';

const SIMULATIONS = Number(process.env.BENCH_SIMULATIONS ?? 1_000_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);

async function main(): Promise<void> {
  const es = engines();
  const w1 = workloads(false)[0]!;
  const p = await prepare(new DirectExecutor(es['wasm-simd128']), w1, { simulations: SIMULATIONS });
  const { ms } = await benchWorkload(es, p, REPEATS, 0);
  console.log(`${SIMULATIONS.toLocaleString('en-US')} simulations × ${w1.assets} assets, buy-and-hold, 99 %, 10 days; one core; median of ${REPEATS}`);
  for (const [name, t] of Object.entries(ms)) console.log(`${name.padEnd(14)} ${t.toFixed(1).padStart(8)} ms`);
  const simd = ms['wasm-simd128']!;
  console.log(
    `ratios: wasm-scalar/wasm-simd ${(ms['wasm-scalar']! / simd).toFixed(2)}, wasm-simd/native-x86-64 ${(simd / ms['native-x86-64']!).toFixed(2)}, wasm-simd/native (host CPU) ${(simd / ms.native!).toFixed(2)}`,
  );
  console.log('results: bit-identical across builds');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
