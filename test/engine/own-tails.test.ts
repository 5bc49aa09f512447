// A calculation split over tasks has each keep its own share of the tails (OP_SIMULATE_OWN_TAILS)
// and answers, bit for bit, what one task answers; where the merge cannot prove a kept tail long
// enough (a book on an asset of no volatility ties at every rank: ERR_TAILS_SHORT) the tasks run
// again keeping full tails (OP_SIMULATE), with one OP_FINALIZE or a split one; beside a book of no
// exposure (which ties at every rank) the engine keeps full worst lists at once and the merge
// answers — through the real pool, both builds.
import t from 'tap';
import { portfolioBook, type Estimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource, type EngineChoice } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { estimateModel, runModel, type ModelInput } from '../../src/risk/engine-run.js';
import { bitJson } from '../helpers/bit-json.js';
import { equalWeightModel } from '../helpers/equal-weight-model.js';
import { uniformWalkPrices } from '../helpers/price-series.js';
import { RecordingExecutor } from '../helpers/recording-executor.js';

const ASSETS = 4;
const DATES = 300;
const OPTIONS = { lookback: 0, zeroDrift: false, ewmaLambda: null };

/** How a case's tasks run: own-share tails that merge, or own-share tails then full ones. */
type Route = 'own' | 'fallback';

const onFirstAsset = portfolioBook(1_000_000, Float64Array.of(1, 0, 0, 0));
const CASES: [string, ModelInput, Route][] = [
  ['a long book', equalWeightModel(ASSETS, 100_000, { seed: 7 }), 'own'],
  ['a long book, Student-t at 95 %', equalWeightModel(ASSETS, 60_000, { method: 'monte_carlo_student_t', confidence: 0.95, seed: 8 }), 'own'],
  ['historical windows (full tails kept)', equalWeightModel(ASSETS, 0, { method: 'historical', seed: 9 }), 'own'],
  ['a book on an asset of no volatility', equalWeightModel(ASSETS, 100_000, { books: [onFirstAsset], seed: 10 }), 'fallback'],
  [
    'a book of no exposure beside one',
    equalWeightModel(ASSETS, 100_000, { books: [onFirstAsset, portfolioBook(1_000_000, Float64Array.of(0, -0, 0, 0))], seed: 11 }),
    'own',
  ],
];

/** `est` with its first asset's volatility removed: row 0 of the triangular factor is its one entry. */
function firstAssetFlat(est: Estimation): Estimation {
  if (est.factorColumns !== ABI.FACTOR_TRIANGULAR) throw new Error('a triangular factor expected');
  return { ...est, factor: est.factor.map((x, i) => (i === 0 ? 0 : x)) };
}

for (const choice of ['native', 'wasm'] as EngineChoice[]) {
  t.test(`${choice}: own-share tails answer as one task, and fall back to full tails where they must`, async (t) => {
    const source = resolveEngineSource(choice);
    const pool = new EnginePool(source, 2, 64);
    t.teardown(() => pool.close());
    const direct = new DirectExecutor(instantiateEngine(source));
    const estimated = await estimateModel(direct, uniformWalkPrices(ASSETS, DATES, 41), DATES, ASSETS, OPTIONS);
    for (const [what, model, route] of CASES) {
      const est = route === 'fallback' ? firstAssetFlat(estimated) : estimated;
      const whole = bitJson(await runModel(direct, model, est, { maxBatches: 1 }));
      for (const finalizeParts of [1, 2]) {
        const recording = new RecordingExecutor(pool);
        const counts = { fullTailRepeats: 0 };
        const split = await runModel(recording, model, est, { maxBatches: 2, minBlocksPerBatch: 1, finalizeParts, counts });
        t.equal(bitJson(split), whole, `${what}, finalize in ${finalizeParts}: one task's answer, bit for bit`);
        const count = (op: number) => recording.ops.get(op) ?? 0;
        t.equal(count(ABI.OP_SIMULATE_OWN_TAILS), 2, `${what}: tasks keeping their own share`);
        t.equal(count(ABI.OP_SIMULATE), route === 'own' ? 0 : 2, `${what}: tasks keeping full tails`);
        const merges = finalizeParts === 1 ? count(ABI.OP_FINALIZE) : count(ABI.OP_FINALIZE_SPLIT);
        t.equal(merges, route === 'fallback' ? 2 : 1, `${what}: merges`);
        t.equal(counts.fullTailRepeats, route === 'fallback' ? 1 : 0, `${what}: a repeat with full tails counted (for /metrics)`);
      }
    }
  });
}
