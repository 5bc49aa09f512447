// A calculation split over tasks has each keep its own share of the tails (OP_SIMULATE_OWN_TAILS)
// and answers, bit for bit, what one task answers; where the merge cannot prove a kept tail long
// enough (a book of no exposure ties at every rank: ERR_TAILS_SHORT) the tasks run again keeping
// full tails (OP_SIMULATE), with one OP_FINALIZE or a split one — through the real pool, both
// builds.
import t from 'tap';
import { portfolioBook } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource, type EngineChoice } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, runModel, type ModelInput } from '../../src/risk/engine-run.js';
import { equalWeightModel } from '../helpers/equal-weight-model.js';
import { uniformWalkPrices } from '../helpers/price-series.js';
import { RecordingExecutor } from '../helpers/recording-executor.js';

const ASSETS = 4;
const DATES = 300;
const OPTIONS = { lookback: 0, zeroDrift: false, ewmaLambda: null };

const zeroBook = portfolioBook(1_000_000, new Float64Array(ASSETS));
const CASES: [string, ModelInput, boolean][] = [
  ['a long book', equalWeightModel(ASSETS, 100_000, { seed: 7 }), false],
  ['a long book, Student-t at 95 %', equalWeightModel(ASSETS, 60_000, { method: 'monte_carlo_student_t', confidence: 0.95, seed: 8 }), false],
  ['historical windows (full tails kept)', equalWeightModel(ASSETS, 0, { method: 'historical', seed: 9 }), false],
  ['a book of no exposure', equalWeightModel(ASSETS, 100_000, { books: [zeroBook], seed: 10 }), true],
];

for (const choice of ['native', 'wasm'] as EngineChoice[]) {
  t.test(`${choice}: own-share tails answer as one task, and fall back to full tails where they must`, async (t) => {
    const source = resolveEngineSource(choice);
    const pool = new EnginePool(source, 2, 64);
    t.teardown(() => pool.close());
    const direct = new DirectExecutor(instantiateEngine(source));
    const est = await estimateModel(direct, uniformWalkPrices(ASSETS, DATES, 41), DATES, ASSETS, OPTIONS);
    for (const [what, model, fallsBack] of CASES) {
      const whole = await runModel(direct, model, est, { maxBatches: 1 });
      for (const finalizeParts of [1, 2]) {
        const recording = new RecordingExecutor(pool);
        const split = await runModel(recording, model, est, { maxBatches: 2, minBlocksPerBatch: 1, finalizeParts });
        t.same(split, whole, `${what}, finalize in ${finalizeParts}: one task's answer`);
        const count = (op: number) => recording.ops.get(op) ?? 0;
        t.equal(count(ABI.OP_SIMULATE_OWN_TAILS), 2, `${what}: two tasks keeping their own share`);
        t.equal(count(ABI.OP_SIMULATE), fallsBack ? 2 : 0, `${what}: ${fallsBack ? 'again with full tails' : 'never again'}`);
        const merges = finalizeParts === 1 ? count(ABI.OP_FINALIZE) : count(ABI.OP_FINALIZE_SPLIT);
        t.equal(merges, fallsBack ? 2 : 1, `${what}: merged ${fallsBack ? 'twice' : 'once'}`);
      }
    }
  });
}
