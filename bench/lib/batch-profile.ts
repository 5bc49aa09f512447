// Where the 100-book batch's time goes in the engine: the calculation the service runs (the same
// estimate, books and seed), called in this thread on the build the service picks, for 1 book and
// for 100: OP_RUN as the service calls it when the plan has one task (100k simulations make one),
// and the same split into OP_SIMULATE_OWN_TAILS and OP_FINALIZE (these two add the encoding and decoding of
// the partials). Medians of interleaved runs.
import { decodeResults } from '../../src/engine/results-codec.js';
import { ABI } from '../../src/engine/abi.js';
import { encodeFinalize, type EngineBook } from '../../src/engine/codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { type Engine } from '../../src/engine/ops.js';
import { warmUp } from '../../src/engine/warm-up.js';
import { selectColumns } from '../../src/datasets/dataset.js';
import { canonicalSymbols, priceBook, pricesAt } from '../../src/risk/books.js';
import { blockCount, planBatches } from '../../src/risk/plan.js';
import { estimateModel, simulationSpec, type ModelInput } from '../../src/risk/engine-run.js';
import { BATCH_SIMULATIONS, BATCH_SYMBOLS, batchBooks } from './batch-bench.js';
import { median } from './stats.js';
import { loadDataset } from './workloads.js';

export interface PhaseFigures {
  /** OP_RUN over every block (simulate + finalize in one call, no partials encoded), ms. */
  run_ms: number;
  /** Each simulate task of the split, ms. */
  simulate_ms: number[];
  finalize_ms: number;
  /** Engine output bytes (the partials posted back from the workers, then the results). */
  partial_bytes: number;
  result_bytes: number;
}

export interface BatchProfile {
  build: string;
  /** Simulate tasks the service plans for 100k simulations on 2 workers. */
  service_tasks: number;
  /** Simulate tasks of the split measured here. */
  tasks: number;
  single: PhaseFigures;
  batch: PhaseFigures;
  /** Book 0's VaR here, to compare with the service's. */
  book0_var: number;
}

/** The engine phases of one book and of the 100-book batch; the split has `tasks` simulate tasks. */
export async function profileBatchEngine(repeats: number, tasks = 2, engine: Engine = instantiateEngine(resolveEngineSource('auto'))): Promise<BatchProfile> {
  for (let i = 0; i < 3; i++) warmUp(engine);
  const exec = new DirectExecutor(engine);
  const dataset = await loadDataset('wide461');
  const books = batchBooks(dataset.symbols.slice(0, BATCH_SYMBOLS));
  // The symbols in the dataset's order, as the service draws them (api.md's canonical scenarios):
  // in the books' order of first appearance the same seed would draw other scenarios.
  const union = canonicalSymbols(dataset, [books.flatMap((b) => b.positions.map((p) => p.symbol))]);
  const est = await estimateModel(exec, selectColumns(dataset, union), dataset.dates.length, union.length, {
    lookback: 0,
    zeroDrift: false,
    ewmaLambda: null,
  });
  const prices = pricesAt(dataset, union, est.lastDate);
  const engineBooks: EngineBook[] = books.map((b) => priceBook(b, union, prices, undefined, []).engine);
  const model = (bs: EngineBook[]): ModelInput => ({
    method: 'monte_carlo_normal',
    rebalanced: false,
    books: bs,
    comparison: 'none',
    horizon: 10,
    confidence: 0.99,
    simulations: BATCH_SIMULATIONS,
    degreesOfFreedom: 5,
    seed: 20240611,
    antithetic: false,
    importanceSampling: false,
    zeroDrift: false,
    histogramBins: 50,
  });
  const plan = planBatches(BATCH_SIMULATIONS, tasks, 1);
  const run = (bs: EngineBook[]) => {
    const spec = simulationSpec(model(bs), est);
    const whole = encodeSpec(spec, 0, blockCount(BATCH_SIMULATIONS));
    const started = performance.now();
    const direct = engine.call(ABI.OP_RUN, whole);
    const run_ms = performance.now() - started;
    const simulate_ms: number[] = [];
    const partials = plan.map((b) => {
      const start = performance.now();
      const out = engine.call(ABI.OP_SIMULATE_OWN_TAILS, encodeSpec(spec, b.first, b.end));
      simulate_ms.push(performance.now() - start);
      return out;
    });
    const input = encodeFinalize(partials);
    const start = performance.now();
    const out = engine.call(ABI.OP_FINALIZE, input);
    const finalize_ms = performance.now() - start;
    if (out[0] === ABI.ERR_TAILS_SHORT) throw new Error('batch profile: own-share tails not proved long enough (ERR_TAILS_SHORT)');
    if (out.length !== direct.length || out.some((x, i) => !Object.is(x, direct[i])))
      throw new Error('batch profile: OP_RUN ≠ OP_SIMULATE_OWN_TAILS + OP_FINALIZE');
    return { run_ms, simulate_ms, finalize_ms, partial_bytes: input.byteLength, result_bytes: out.byteLength, out };
  };
  const runs: Record<'single' | 'batch', ReturnType<typeof run>[]> = { single: [], batch: [] };
  run(engineBooks); // warm-up
  for (let r = 0; r < repeats; r++) {
    runs.single.push(run(engineBooks.slice(0, 1)));
    runs.batch.push(run(engineBooks));
  }
  const figures = (rs: ReturnType<typeof run>[]): PhaseFigures => ({
    run_ms: median(rs.map((x) => x.run_ms)),
    simulate_ms: plan.map((_, i) => median(rs.map((x) => x.simulate_ms[i]!))),
    finalize_ms: median(rs.map((x) => x.finalize_ms)),
    partial_bytes: rs[0]!.partial_bytes,
    result_bytes: rs[0]!.result_bytes,
  });
  const single = decodeResults(runs.single[0]!.out).books[0]!;
  const first = decodeResults(runs.batch[0]!.out).books[0]!;
  if (single.valueAtRisk !== first.valueAtRisk) throw new Error(`batch profile: book 0 VaR ${first.valueAtRisk} in the batch, ${single.valueAtRisk} alone`);
  return {
    build: engine.build,
    service_tasks: planBatches(BATCH_SIMULATIONS, 2).length,
    tasks: plan.length,
    single: figures(runs.single),
    batch: figures(runs.batch),
    book0_var: single.valueAtRisk,
  };
}
