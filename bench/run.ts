// `npm run bench [-- --quick]`: every benchmark of issue 4 in one run, printed as it goes, then
// bench/results/<date>.json, a Markdown report and SVG plots (also as latest.*).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DirectExecutor } from '../src/engine/direct-executor.js';
import { ROOT } from '../src/paths.js';
import { benchWorkload, engines, normalsNs, scalingCurve, type EngineFigures } from './lib/engine-bench.js';
import { ensureNumpy, runNumpy, type NumpyResult } from './lib/numpy.js';
import { writeReport, type Results } from './lib/report.js';
import { benchBatch } from './lib/batch-bench.js';
import { profileBatchEngine } from './lib/batch-profile.js';
import { benchService, benchW5EndToEnd } from './lib/service-bench.js';
import { benchLatency } from './lib/latency-bench.js';
import { benchTailLevels } from './lib/tail-bench.js';
import { benchPrecision } from './lib/precision-bench.js';
import { progress } from './lib/stats.js';
import { prepare, workloads } from './lib/workloads.js';
import { benchWideBook } from './lib/wide-book-bench.js';
import { benchAssetScaling } from './lib/asset-scaling-bench.js';
import { benchEstimationSplit } from './lib/estimation-bench.js';
import { benchWorkerSplit } from './lib/worker-bench.js';
import { benchFxFactors } from './lib/fx-bench.js';
import { benchOptionRevaluation } from './lib/options-bench.js';
import { benchOptionRequest } from './lib/option-request-bench.js';
import { benchKernels, kernelEngines, kernelLine } from './lib/kernel-bench.js';

/** A build's VaR and an independent one agree within this (different random numbers). */
const ORACLE_TOLERANCE = 0.1;

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const repeats = quick ? 3 : 7;
  const es = engines();
  const exec = new DirectExecutor(es['wasm-simd128']);
  const numpy = ensureNumpy();
  progress(`benchmarks (${quick ? 'quick' : 'full'}), ${repeats} interleaved repeats, medians; NumPy ${numpy ? 'available' : 'missing: skipped'}`);
  progress('workload  wasm-simd  wasm-scalar  native-x86-64  native-host  plain-TS    NumPy   (ms, one thread)   VaR check');

  const results: Results = {
    date: new Date().toISOString(),
    quick,
    machine: `${process.platform} ${process.arch}, node ${process.version}`,
    workloads: {},
    numpy: {},
  };
  for (const w of workloads(quick)) {
    const p = await prepare(exec, w);
    const plainSims = Math.min(w.simulations, w.assets > 100 ? 2_000 : quick ? 10_000 : 50_000);
    const fig: EngineFigures = await benchWorkload(es, p, repeats, plainSims);
    const np: NumpyResult | null = numpy ? runNumpy(p, repeats) : null;
    for (const [name, v] of [
      ['plain TS', fig.oracle?.var],
      ['NumPy', np?.var],
    ] as const) {
      if (v !== undefined && Math.abs(v / fig.var - 1) > ORACLE_TOLERANCE) throw new Error(`${w.id}: engine VaR ${fig.var} vs ${name} ${v}`);
    }
    // The medians only: the rounds' own times stay out of the results file.
    results.workloads[w.id] = { title: w.title, simulations: w.simulations, ms: fig.ms, var: fig.var, es: fig.es, ...(fig.oracle && { oracle: fig.oracle }) };
    if (np) results.numpy[w.id] = np;
    const c = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(1)).padStart(10);
    progress(
      `${w.id.padEnd(8)}${c(fig.ms['wasm-simd128'])}${c(fig.ms['wasm-scalar'])}${c(fig.ms['native-x86-64'])}   ${c(fig.ms.native)}${c(fig.oracle?.ms)}${c(np?.median_ms)}   VaR ${fig.var.toFixed(0)} ok`,
    );
  }

  const normalCount = quick ? 2_000_000 : 10_000_000;
  results.normals_ns = normalsNs(normalCount);
  if (numpy) results.normals_ns.numpy = runNumpy(await prepare(exec, workloads(true)[0]!), 1, normalCount).normal_ns!;
  progress(
    `normals (ns each): ${Object.entries(results.normals_ns)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}`,
  );

  results.kernels = {};
  for (const [build, engine] of Object.entries(kernelEngines())) {
    results.kernels[build] = benchKernels(engine);
    progress(`dense kernels, ${kernelLine(build, results.kernels[build])}`);
  }

  const w1 = workloads(quick)[0]!;
  const e = es['wasm-simd128'];
  results.scaling = {
    simulations: await scalingCurve(e, w1, 'simulations', quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6, 1e7], quick ? 1 : 3),
    horizon: await scalingCurve(e, { ...w1, rebalanced: true, simulations: quick ? 2_000 : 20_000 }, 'horizon', [1, 10, 50, 100, 250], quick ? 1 : 3),
    assets: await scalingCurve(e, { ...w1, file: 'wide461', simulations: quick ? 5_000 : 20_000, horizon: 1 }, 'assets', [2, 10, 50, 200, 461], quick ? 1 : 3),
  };
  progress(
    `scaling: ${Object.entries(results.scaling)
      .map(([k, pts]) => `${k} ${pts.map(([x, y]) => `${x}:${y.toFixed(1)}`).join(' ')}`)
      .join(' | ')}`,
  );
  const split = await benchWorkerSplit(await prepare(exec, workloads(quick)[1]!), quick ? 3 : 5);
  results.workers = { '1': split.one_ms, '2': split.two_ms, pair: split.pair_ms };
  results.worker_ceiling = { ceiling: split.machine_ceiling, share: split.of_ceiling };
  progress(
    `W2 on the worker pool, interleaved: 1 worker ${split.one_ms.toFixed(1)} ms, 2 workers ${split.two_ms.toFixed(1)} ms (halves overlapping ${(split.overlap * 100).toFixed(0)} %), two whole at once ${split.pair_ms.toFixed(1)} ms; within each round, the median: the machine's ceiling ×${split.machine_ceiling.toFixed(2)}, the split ${(split.of_ceiling * 100).toFixed(0)} % of it`,
  );

  results.service = await benchService(quick);
  const s = results.service;
  progress(`service: W1 ${s.latency_ms.W1!.toFixed(1)} ms, W2 ${s.latency_ms.W2!.toFixed(1)} ms end to end; overhead ${s.overhead_ms.toFixed(2)} ms`);
  progress(
    `load (50 connections, small request): ${s.load.requests_per_s.toFixed(0)} req/s, p50 ${s.load.p50_ms} ms, p99 ${s.load.p99_ms} ms, errors ${s.load.errors}, non-2xx ${s.load.non_2xx}`,
  );

  const w5 = workloads(quick)[4]!;
  results.service_w5 = await benchW5EndToEnd(w5.simulations, quick ? 3 : 7);
  progress(
    `service W5 (${w5.title.replace('20k', String(w5.simulations))}) end to end, 2 workers: native ${results.service_w5.native.toFixed(1)} ms, ENGINE=wasm ${results.service_w5.wasm.toFixed(1)} ms; NumPy one thread ${results.numpy.W5?.median_ms.toFixed(1) ?? '—'} ms`,
  );

  results.latency = await benchLatency(quick);
  const lat = results.latency;
  progress(
    `small request: server total p50 ${lat.sequential.server_total_ms!.p50.toFixed(2)} ms, p99 ${lat.sequential.server_total_ms!.p99.toFixed(2)} ms; capacity ${lat.capacity.requests_per_s.toFixed(0)} req/s; open-loop p99 ${lat.open.map((o) => `${(o.fraction * 100).toFixed(0)} %: ${o.figures.latency_ms.p99.toFixed(1)} ms`).join(', ')}`,
  );

  results.batch = await benchBatch(quick ? 3 : 5);
  const b = results.batch;
  progress(
    `batch (${b.books} books × ${b.symbols} symbols × ${b.simulations} sims): batch ${b.batch_ms.toFixed(1)} ms (${b.per_book_batch_ms.toFixed(2)} ms/book); ${b.books} single calls sequential ${b.singles_sequential_ms.toFixed(1)} ms (${b.per_book_single_ms.toFixed(2)} ms/book), 2 clients ${b.singles_2_clients_ms.toFixed(1)} ms; batch faster by ${b.ratio.toFixed(2)}× (2 clients: ${b.ratio_2_clients.toFixed(2)}×), target ≥ 10`,
  );
  results.batch_profile = await profileBatchEngine(quick ? 3 : 5);
  const bp = results.batch_profile;
  if (bp.book0_var !== b.book0_var) throw new Error(`batch profile: book 0 VaR ${bp.book0_var} in this thread, ${b.book0_var} from the service`);
  progress(
    `batch engine alone (${bp.build}, one thread): OP_RUN 1 book ${bp.single.run_ms.toFixed(1)} ms, 100 books ${bp.batch.run_ms.toFixed(1)} ms; split: simulate ${bp.batch.simulate_ms.map((x) => x.toFixed(1)).join(' + ')} ms, finalize ${bp.batch.finalize_ms.toFixed(1)} ms`,
  );

  results.tail = await benchTailLevels(quick ? 1_000_000 : 10_000_000, quick ? 3 : 5);
  const tl = results.tail;
  progress(
    `tail (10 assets × ${tl.simulations} × 1 d, one task): c = 0.99 ${tl.ms_c99.toFixed(0)} ms, c = 0.6 ${tl.ms_c60.toFixed(0)} ms (${(tl.ms_c60 / tl.ms_c99).toFixed(2)}×, target ≤ 1.5)`,
  );

  results.precision = await benchPrecision(0.002, quick ? 3 : 5, numpy, quick);
  const pr = results.precision;
  progress(
    `precision (20 assets × 10 d, 99 %, VaR and ES to 0.2 %): ${pr.simulations_used} simulations in ${pr.rounds} rounds, ${pr.rounds_ms.toFixed(0)} ms; one plain run of that count ${pr.plain_ms.toFixed(0)} ms; NumPy ${pr.numpy_ms?.toFixed(0) ?? '—'} ms; importance sampling ${pr.weighted.simulations_used} in ${pr.weighted.rounds} rounds, ${pr.weighted.rounds_ms.toFixed(1)} ms; ES variance factors ${pr.reduction.map((x) => `${x.confidence}: ${x.es_variance_factor.toFixed(0)}`).join(', ')}`,
  );

  results.wide_books = [];
  for (const [assets, dates] of quick
    ? [[2000, 300]]
    : [
        [2000, 300],
        // More returns than assets: the Cholesky path, Σ split over the workers, then factored.
        [1200, 1500],
        [5000, 300],
        [5000, 1260],
      ]) {
    const b = await benchWideBook(assets!, dates!, 10_000, quick ? 1 : 3);
    results.wide_books.push(b);
    progress(
      `wide book ${assets} × ${dates} dates × 10,000 × 1 d (${b.sampling}): first calculate ${b.first_ms.toFixed(0)} ms, cached ${b.cached_ms.toFixed(0)} ms; NumPy from prices ${b.numpy?.median_ms.toFixed(0) ?? '—'} ms`,
    );
  }

  results.asset_scaling = await benchAssetScaling(quick ? [100, 250, 500, 1000] : [100, 250, 500, 1000, 2000, 5000], 10_000, quick ? 1 : 3, numpy);
  for (const p of results.asset_scaling)
    progress(
      `assets (${p.path}, ${p.returns} returns, 10,000 × 1 d, one thread): ${p.points.map((q) => `${q.assets}: ${q.total_ms.toFixed(0)} ms (NumPy ${q.numpy_ms?.toFixed(0) ?? '—'})`).join(', ')}`,
    );

  results.estimation_split = await benchEstimationSplit(quick ? 1_500 : 2_000, 2_521, quick ? 3 : 5);
  const es2 = results.estimation_split;
  progress(
    `estimation ${es2.assets} × ${es2.returns} returns on 2 WASM workers: whole ${es2.whole_ms.toFixed(0)} ms, split ${es2.split_ms.toFixed(0)} ms (${es2.whole_over_split.toFixed(2)}×)`,
  );

  results.fx = await benchFxFactors(quick ? 50_000 : 200_000, quick ? 3 : 7);
  const fxb = results.fx;
  progress(
    `FX as a risk factor (20 foreign stocks + 3 FX columns vs 23 stocks, ${fxb.simulations} × 10 d, one WASM thread): the book ${fxb.plain_book_ms.toFixed(0)} vs ${fxb.fx_book_ms.toFixed(0)} ms (${fxb.fx_book_over_plain.toFixed(2)}×, target ≤ 1.3); calculate with meta.fx, the book priced again without FX: ${fxb.plain_ms.toFixed(0)} vs ${fxb.fx_ms.toFixed(0)} ms (${fxb.fx_over_plain.toFixed(2)}×)`,
  );

  results.options = benchOptionRevaluation(es.native, 1000, 100, quick ? 20_000 : 100_000, quick ? 1 : 3);
  const ob = results.options;
  progress(
    `options: ${ob.options} on ${ob.underlyings} underlyings × ${ob.scenarios} scenarios, full revaluation, one core: engine (${ob.build}) ${ob.engine_ns_per_option_scenario.toFixed(1)} ns per option-scenario, NumPy/SciPy ${ob.numpy_ns_per_option_scenario.toFixed(1)} ns (NumPy / engine ${ob.numpy_over_engine.toFixed(2)}, written out); one book of them priced on kept scenarios as a calculate prices it (P&L, tails, worst rows) ${ob.book_ns_per_option_scenario.toFixed(1)} ns (NumPy / engine ${ob.numpy_over_book.toFixed(2)}, target ≥ 3)`,
  );
  results.option_request = benchOptionRequest(es.native, 500, 100, quick ? 20_000 : 100_000, quick ? 1 : 3);
  const oq = results.option_request;
  progress(
    `a request's options: ${oq.options} on ${oq.underlyings} underlyings × ${oq.scenarios} scenarios, each as asked and at delta, two books (the nonlinearity): ${oq.request_ns_per_option_scenario.toFixed(1)} ns per option position-scenario (NumPy/SciPy's revaluation alone ${ob.numpy_ns_per_option_scenario.toFixed(1)} ns)`,
  );

  const dir = path.join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.slice(0, 10) + (quick ? '-quick' : '');
  writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify(results, null, 2) + '\n');
  const md = writeReport(results, dir, stamp);
  progress(`\n${md.split('## Ratios')[1]?.split('##')[0]?.trim() ?? ''}`);
  progress(`\nwrote bench/results/${stamp}.json, ${stamp}.md and plots`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
