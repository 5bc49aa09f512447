// A calculation's model (the factor of a Monte Carlo, the returns of a historical simulation) is
// given to its tasks in shared memory, copied there once per estimation: every task of every
// calculation from one estimate reads the same copy (a live book's kept units too), and the
// answers are the bits of the spec given joined in one input, on every build, through the real
// worker pool.
import t from 'tap';
import { type Estimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource, type EngineChoice } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { type EngineInput, type OpCode } from '../../src/engine/ops.js';
import { decodeResults } from '../../src/engine/results-codec.js';
import { encodeSpec } from '../../src/engine/spec-codec.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, runModel, scenarioCount, simulationSpec, type Method } from '../../src/risk/engine-run.js';
import { keepScenarios, runKept } from '../../src/risk/kept-scenarios.js';
import { blockCount } from '../../src/risk/plan.js';
import { equalWeightModel } from '../helpers/equal-weight-model.js';
import { uniformWalkPrices } from '../helpers/price-series.js';
import { RecordingExecutor } from '../helpers/recording-executor.js';

const pricesOf = (assets: number, dates: number) => uniformWalkPrices(assets, dates, assets * 7 + dates);
const model = (method: Method, assets: number, simulations: number) => equalWeightModel(assets, simulations, { method, seed: 29, histogramBins: 20 });

const OPTIONS = { lookback: 0, zeroDrift: false, ewmaLambda: null };
// Cholesky (dates > assets), loadings (fewer returns than assets) and historical.
const CASES = [
  ['monte_carlo_normal', 120, 400, 'a triangular factor'],
  ['monte_carlo_student_t', 120, 60, 'loadings'],
  ['historical', 40, 700, 'returns'],
] as const;

/** The model part of each task's input: its last part, the one as long as the spec's model. */
function modelParts(inputs: [OpCode, EngineInput][], op: OpCode, length: number): Float64Array[] {
  return inputs.filter(([o]) => o === op).map(([, input]) => (input instanceof Float64Array ? input : input[input.length - 1]!).subarray(0, length));
}

for (const choice of ['native', 'wasm'] as EngineChoice[]) {
  t.test(`${choice}: every task reads one shared copy of the model, and answers as joined`, async (t) => {
    const source = resolveEngineSource(choice);
    const pool = new EnginePool(source, 2, 64);
    t.teardown(() => pool.close());
    const direct = new DirectExecutor(instantiateEngine(source));
    const engine = instantiateEngine(source);
    for (const [method, assets, dates, what] of CASES) {
      const est: Estimation = await estimateModel(direct, pricesOf(assets, dates), dates, assets, OPTIONS);
      const m = model(method, assets, 6_000);
      const spec = simulationSpec(m, est);
      const modelVector = method === 'historical' ? est.returns : est.factor;
      const copy = Float64Array.from(modelVector);
      const joined = decodeResults(engine.call(ABI.OP_RUN, encodeSpec(spec, 0, blockCount(scenarioCount(m, est)))));
      const recording = new RecordingExecutor(pool);
      const split = await runModel(recording, m, est, { maxBatches: 2, minBlocksPerBatch: 1 });
      const again = await runModel(recording, m, est, { maxBatches: 2, minBlocksPerBatch: 1 });
      const whole = await runModel(recording, m, est, { maxBatches: 1 });
      t.same(split, joined, `${what}: split over the pool, the joined spec's answer`);
      t.same(again, joined, `${what}: a second calculation from the same estimate`);
      t.same(whole, joined, `${what}: one task (OP_RUN in parts)`);
      const parts = [...modelParts(recording.inputs, ABI.OP_SIMULATE_OWN_TAILS, modelVector.length), ...modelParts(recording.inputs, ABI.OP_RUN, modelVector.length)];
      t.equal(parts.length, 5, `${what}: four simulate tasks and a run`);
      t.equal(new Set(parts.map((p) => p.buffer)).size, 1, `${what}: one buffer holds the model for every task`);
      t.ok(parts[0]!.buffer instanceof SharedArrayBuffer, `${what}: in shared memory, posted to the workers as it is`);
      t.same(parts[0], modelVector, `${what}: the model's values`);
      t.same(modelVector, copy, `${what}: the estimate's own vector untouched`);
      // Kept scenarios (a live book) read the same copy; a pricing on them answers as the joined spec.
      const keeping = new RecordingExecutor(pool);
      const kept = await keepScenarios(keeping, m, est, { maxBatches: 2, minBlocksPerBatch: 1 });
      const keptParts = modelParts(keeping.inputs, ABI.OP_UNITS, modelVector.length);
      t.equal(keptParts.length, 2, `${what}: two kept-units tasks`);
      t.ok(
        keptParts.every((p) => p.buffer === parts[0]!.buffer),
        `${what}: kept units read the same shared copy`,
      );
      const priced = await runKept(pool, m, est, kept, { maxBatches: 2 }, undefined, { queueMs: 0, computeMs: 0, batches: 0 });
      t.same(priced, joined, `${what}: priced on kept scenarios, the joined spec's answer`);
      kept.batches.forEach((b, i) => {
        const alone = engine.call(ABI.OP_UNITS, encodeSpec(spec, b.first, b.end));
        t.same(kept.units[i], alone.subarray(1), `${what}: kept units of blocks ${b.first}..${b.end} as from the joined spec`);
      });
    }
  });
}
