// The TypeScript engine binding: WASM and native builds agree bit for bit on the shared sample
// data for every method and mode; seeded runs repeat; any batch split gives the same answer.
import { portfolioBook } from '../../src/engine/codec.js';
import t from 'tap';
import { bitJson } from '../helpers/bit-json.js';
import { createReadStream } from 'node:fs';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { selectColumns } from '../../src/datasets/dataset.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine, nativeAvailable } from '../../src/engine/native-engine.js';
import { estimateModel, runModel, type Method, type ModelInput } from '../../src/risk/engine-run.js';
import { WIDE_SAMPLE } from '../helpers/service.js';

const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'JPM', 'KHC'];
const METHODS: Method[] = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'];

function model(method: Method, rebalanced: boolean, importanceSampling = false): ModelInput {
  return {
    method,
    rebalanced,
    books: [portfolioBook(1_000_000, new Float64Array([0.3, 0.2, 0.2, 0.2, 0.1]))],
    comparison: 'none',
    horizon: 5,
    confidence: 0.975,
    simulations: 3_000,
    degreesOfFreedom: 6,
    seed: 987_654_321,
    antithetic: false,
    importanceSampling,
    zeroDrift: false,
    histogramBins: 40,
  };
}

t.test('native addon is built', async (t) => {
  t.ok(nativeAvailable(), 'build/native/index.node exists (scripts/setup.sh builds it)');
});

t.test('WASM and native agree exactly; splits and repeats do not change results', async (t) => {
  const dataset = await readCsv(createReadStream(WIDE_SAMPLE), { maxSymbols: 5000 });
  const prices = selectColumns(dataset, SYMBOLS);
  const builds = {
    wasm: new DirectExecutor(instantiateEngine(resolveEngineSource('wasm'))),
    wasmScalar: new DirectExecutor(instantiateEngine(resolveEngineSource('wasm-scalar'))),
    native: new DirectExecutor(instantiateEngine(resolveEngineSource('native'))),
    nativeBaseline: new DirectExecutor(NativeEngine.baseline()),
  };
  const options = { lookback: 0, zeroDrift: false, ewmaLambda: null };
  const estimates = await Promise.all(Object.values(builds).map((b) => estimateModel(b, prices, dataset.dates.length, SYMBOLS.length, options)));
  t.same(estimates[1], estimates[0], 'estimation: wasm-scalar = wasm');
  t.same(estimates[2], estimates[0], 'estimation: native = wasm');
  t.same(estimates[3], estimates[0], 'estimation: native x86-64 = wasm');
  const est = estimates[0]!;
  t.equal(est.observations, 1138, 'returns on dates where KHC (from July 2015) has prices');

  const cases = METHODS.flatMap((method) => [false, true].map((rebalanced) => ({ method, rebalanced, weighted: false })));
  // Importance sampling: weighted scenarios and their figures, on every Monte Carlo model.
  for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const) for (const rebalanced of [false, true]) cases.push({ method, rebalanced, weighted: true });
  for (const { method, rebalanced, weighted } of cases) {
    if (method === 'parametric_normal' && rebalanced) continue;
    const m = model(method, rebalanced, weighted);
    const label = `${method} ${rebalanced ? 'rebalanced' : 'buy_and_hold'}${weighted ? ' importance sampling' : ''}`;
    const reference = await runModel(builds.wasm, m, est, { maxBatches: 1 });
    // Every number's bits, −0 told from 0.
    const expected = bitJson(reference);
    t.equal(bitJson(await runModel(builds.native, m, est, { maxBatches: 1 })), expected, `${label}: native = wasm`);
    t.equal(bitJson(await runModel(builds.wasmScalar, m, est, { maxBatches: 1 })), expected, `${label}: wasm-scalar = wasm`);
    t.equal(bitJson(await runModel(builds.nativeBaseline, m, est, { maxBatches: 1 })), expected, `${label}: native x86-64 = wasm`);
    t.equal(bitJson(await runModel(builds.wasm, m, est, { maxBatches: 1 })), expected, `${label}: seeded run repeats`);
    for (const batches of [2, 7]) {
      const split = await runModel(builds.native, m, est, { maxBatches: batches, minBlocksPerBatch: 1 });
      t.equal(bitJson(split), expected, `${label}: ${batches} batches = 1 batch`);
    }
    // Seven partials finalized in 1 (OP_FINALIZE), 2, 3 and 7 parts (OP_FINALIZE_PART, then OP_FINALIZE_SPLIT).
    for (const finalizeParts of [1, 2, 3, 7])
      for (const [name, build] of [['native', builds.native], ['wasm', builds.wasm]] as const) {
        const parted = await runModel(build, m, est, { maxBatches: 7, minBlocksPerBatch: 1, finalizeParts });
        t.equal(bitJson(parted), expected, `${label}: ${name}, 7 batches finalized in ${finalizeParts} part(s) = 1 batch`);
      }
    const figures = reference.books[0]!;
    const sum = figures.componentEs.reduce((a, b) => a + b, 0);
    t.ok(Math.abs(sum / figures.expectedShortfall - 1) < 1e-9, `${label}: components sum to ES`);
  }
  const other = await runModel(builds.wasm, { ...model('monte_carlo_normal', false), seed: 1 }, est, { maxBatches: 1 });
  const base = await runModel(builds.wasm, model('monte_carlo_normal', false), est, { maxBatches: 1 });
  t.not(other.books[0]!.valueAtRisk, base.books[0]!.valueAtRisk, 'another seed gives other draws');
});
