// `npm run bench:check` (run by `npm test`): quick engine benchmarks, the 100-book batch against
// 100 single calls through the service, the small request's open-loop tail, against bench/floors.json. Each benchmark first checks its
// answer (builds bit-identical, VaR against the plain TS oracle, each batch book's metrics equal to
// its single call's), so a fast wrong engine fails too. Exits 1 when a ratio falls below its floor.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DirectExecutor } from '../src/engine/direct-executor.js';
import { ROOT } from '../src/paths.js';
import { benchWorkload, engines } from './lib/engine-bench.js';
import { benchBatch } from './lib/batch-bench.js';
import { benchBacktest } from './lib/backtest-bench.js';
import { benchLatency } from './lib/latency-bench.js';
import { benchTailLevels } from './lib/tail-bench.js';
import { ensureNumpy, wasmOverNumpyPerNormal } from './lib/numpy.js';
import { backingServersInstalled } from '../test/helpers/backing-servers.js';
import { benchReplicaOverhead } from './lib/replica-bench.js';
import { prepare, workloads } from './lib/workloads.js';
import { benchWideBook } from './lib/wide-book-bench.js';
import { benchPrecision } from './lib/precision-bench.js';
import { benchEstimationSplit } from './lib/estimation-bench.js';

const ORACLE_TOLERANCE = 0.1;

async function main(): Promise<void> {
  const floors = JSON.parse(readFileSync(path.join(ROOT, 'bench/floors.json'), 'utf8')) as Record<string, number>;
  const es = engines();
  const exec = new DirectExecutor(es['wasm-simd128']);
  // W1 at full size (100k simulations; the plain TS on 20k, scaled), W2 at quick size in 9 rounds (about 30 ms each).
  const w1 = workloads(false)[0];
  const w2 = workloads(true)[1];
  const small = await benchWorkload(es, await prepare(exec, w1!), 5, 20_000);
  const large = await benchWorkload(es, await prepare(exec, w2!), 9, 0);
  if (Math.abs(small.oracle!.var / small.var - 1) > ORACLE_TOLERANCE)
    throw new Error(`VaR ${small.var} disagrees with the plain TS oracle ${small.oracle!.var}`);
  const measured: Record<string, number | null> = {
    wasm_scalar_over_wasm_simd: large.ms['wasm-scalar']! / large.ms['wasm-simd128']!,
    plain_ts_over_wasm_simd: small.oracle!.ms / small.ms['wasm-simd128']!,
    native_over_wasm_simd: large.ms['native-x86-64']! / large.ms['wasm-simd128']!,
    wasm_simd_over_numpy_per_normal: null,
    embedded_over_shared_stores_latency: null,
    batch_over_single_calls: null,
    deadline_over_backtest: null,
    sequential_p50_over_half_load_p99: null,
    c99_over_c60_tail_time: null,
    numpy_over_service_wide_book: null,
    plain_over_importance_to_target: null,
    whole_over_split_estimation: null,
  };
  // A large tail (c = 0.6) against the usual one (c = 0.99), 10 assets × 10⁶ simulations, one task.
  const tail = await benchTailLevels(1_000_000, 3);
  measured.c99_over_c60_tail_time = tail.c99_over_c60;
  console.log(`tail: 10 assets × 10⁶ × 1 d, c = 0.99 ${tail.ms_c99.toFixed(0)} ms, c = 0.6 ${tail.ms_c60.toFixed(0)} ms`);
  if (ensureNumpy()) {
    const normals = wasmOverNumpyPerNormal(4_000_000, 7);
    measured.wasm_simd_over_numpy_per_normal = normals.ratio;
    console.log(`ns per normal, medians of 7 alternating rounds: WASM simd128 ${normals.wasm_ns.toFixed(2)}, NumPy ${normals.numpy_ns.toFixed(2)}`);
  }
  if (backingServersInstalled()) {
    const replica = await benchReplicaOverhead(1_000);
    measured.embedded_over_shared_stores_latency = replica.embedded_ms / replica.shared_ms;
    console.log(`small calculation, median: embedded ${replica.embedded_ms.toFixed(3)} ms, Redis + PostgreSQL ${replica.shared_ms.toFixed(3)} ms`);
  }
  // 100 books × 20 symbols × 100k simulations through the service: 100 sequential single calls / one batch.
  const batch = await benchBatch(3);
  measured.batch_over_single_calls = batch.ratio;
  console.log(
    `100-book batch ${batch.batch_ms.toFixed(1)} ms, 100 single calls ${batch.singles_sequential_ms.toFixed(1)} ms sequential, ${batch.singles_2_clients_ms.toFixed(1)} ms on 2 clients (medians of 3)`,
  );
  // 250 days × 10 symbols × 10,000 simulations a day through the service, against the deadline.
  const bt = await benchBacktest(1);
  measured.deadline_over_backtest = bt.deadline_over_backtest;
  console.log(`backtest 250 days × ${bt.symbols} symbols × ${bt.simulations} simulations: ${bt.wall_ms.toFixed(0)} ms (deadline ${30_000} ms)`);
  // The small request: sequential p50 against the open-loop p99 at half of the measured capacity.
  const latency = await benchLatency(true);
  measured.sequential_p50_over_half_load_p99 = latency.p50_over_half_load_p99;
  console.log(
    `small request: sequential p50 ${latency.sequential.latency_ms.p50.toFixed(2)} ms (server ${latency.sequential.server_total_ms!.p50.toFixed(2)} ms), capacity ${latency.capacity.requests_per_s.toFixed(0)} req/s, open-loop p99 ${latency.open.map((o) => `${o.fraction * 100} %: ${o.figures.latency_ms.p99.toFixed(1)} ms (server ${o.figures.server_total_ms?.p99.toFixed(1)}, queue ${o.figures.server_queue_ms?.p99.toFixed(1)}, send lag ${o.figures.send_lag_ms?.p99.toFixed(1)})`).join(', ')}; empty pool round trip p50 ${latency.pool_round_trip.round_trip_ms.p50.toFixed(2)} ms, p99 ${latency.pool_round_trip.round_trip_ms.p99.toFixed(2)} ms; half load in ${latency.half_load_p99_ms.length} runs: ${latency.half_load_p99_ms.map((x) => x.toFixed(1)).join(', ')} ms`,
  );
  // 2,000 assets × 300 dates (fewer returns than assets: the loadings path): the first calculate after the
  // upload, against NumPy from the same prices on the same two cores.
  const wide = await benchWideBook(2000, 300, 10_000, 1);
  measured.numpy_over_service_wide_book = wide.numpy_over_first;
  console.log(
    `wide book 2,000 × 300 dates × 10,000 × 1 d (${wide.sampling}): first calculate ${wide.first_ms.toFixed(0)} ms, NumPy from prices ${wide.numpy?.median_ms.toFixed(0) ?? '—'} ms (VaR ${wide.var.toFixed(0)} vs ${wide.numpy?.var.toFixed(0) ?? '—'})`,
  );
  // ES and VaR to 0.2 % at 99 % (20 assets × 10 days): precision rounds plain / with importance sampling.
  const precision = await benchPrecision(0.002, 3, false, true);
  measured.plain_over_importance_to_target = precision.rounds_ms / precision.weighted.rounds_ms;
  console.log(
    `to 0.2 %: plain ${precision.simulations_used} simulations, ${precision.rounds_ms.toFixed(0)} ms; importance sampling ${precision.weighted.simulations_used}, ${precision.weighted.rounds_ms.toFixed(1)} ms`,
  );
  // 2,000 assets × 2,520 returns (the Cholesky path): Σ on one worker / split over two.
  const est = await benchEstimationSplit(2_000, 2_521, 5);
  measured.whole_over_split_estimation = est.whole_over_split;
  console.log(`estimation ${est.assets} × ${est.returns} returns on 2 WASM workers: whole ${est.whole_ms.toFixed(0)} ms, split ${est.split_ms.toFixed(0)} ms`);
  let failed = 0;
  for (const [name, floor] of Object.entries(floors)) {
    if (name.startsWith('_')) continue;
    const value = measured[name];
    if (value === undefined) throw new Error(`floor ${name} has no measurement`);
    const verdict = value === null ? 'skipped (NumPy or Redis/PostgreSQL missing)' : value >= floor ? 'ok' : 'BELOW FLOOR';
    if (value !== null && value < floor) failed++;
    console.log(`${name.padEnd(34)} ${value === null ? '—' : value.toFixed(2).padStart(6)}  floor ${floor}  ${verdict}`);
  }
  console.log(`bench:check: ${Object.keys(floors).length - 1 - failed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
