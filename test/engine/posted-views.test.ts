// An estimation's vectors are views of its answer. Posted to a worker, a view into part of a larger
// buffer travels as a copy of its own range (a clone of the view would copy the whole buffer):
// through the real pool every answer must equal the same call made in this thread, and the larger
// buffer the caller holds must stay whole, a lead or an input part alike.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { decodeEstimation, encodeEstimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { ewmaRecursion, filterReturns } from '../../src/risk/history/variance-filter.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const [assets, dates] = [12, 80];

function prices(): Float64Array {
  const rand = mulberry32(7);
  const out = new Float64Array(assets * dates).fill(100, 0, assets);
  for (let i = assets; i < out.length; i++) out[i] = out[i - assets]! * Math.exp(0.02 * (rand() - 0.5));
  return out;
}

for (const choice of ['wasm', 'native'] as const) {
  t.test(`${choice}: views posted through the pool answer as in this thread`, async (t) => {
    const pool = new EnginePool(resolveEngineSource(choice), 1, 8);
    t.teardown(() => pool.close());
    const direct = new DirectExecutor(instantiateEngine(resolveEngineSource(choice)));
    const request = { prices: prices(), nDates: dates, nAssets: assets, lookback: 0, zeroDrift: false, ewmaLambda: null };
    const answer = (await direct.run(ABI.OP_ESTIMATE, encodeEstimation(request))).output;
    const est = decodeEstimation(answer, assets);
    t.equal(est.returns.buffer, answer.buffer, "the returns are a view of the estimation's answer");
    t.ok(est.returns.byteOffset > 0, 'into part of it');

    // A lead: the filter reads the returns where the task gets them.
    const recursions = Array.from({ length: assets }, () => ewmaRecursion(0.94));
    const here = await filterReturns(direct, est.returns, assets, recursions, true);
    const there = await filterReturns(pool, est.returns, assets, recursions, true);
    t.same(Array.from(there.returns), Array.from(here.returns), 'filtered returns: the same');
    t.same(Array.from(there.standardised ?? []), Array.from(here.standardised ?? []), 'standardised returns: the same');
    t.equal(answer.byteLength, answer.buffer.byteLength, "the answer's buffer is still whole (not moved)");

    // An input part: the prices as a view into a larger buffer.
    const encoded = encodeEstimation(request);
    const wider = new Float64Array(encoded.length + 5);
    wider.set(encoded, 3);
    const view = wider.subarray(3, 3 + encoded.length);
    const viaPool = (await pool.run(ABI.OP_ESTIMATE, [view.subarray(0, ABI.ESTIMATION_HEADER_LEN), view.subarray(ABI.ESTIMATION_HEADER_LEN)])).output;
    t.same(Array.from(viaPool), Array.from(answer), 'the estimation from input parts that are views: the same bits');
    t.equal(wider.buffer.byteLength, (encoded.length + 5) * 8, "the caller's larger buffer is still whole");
    t.equal(wider[3], dates, 'and holds what it held');

    // A lead that is its buffer's whole view is cloned, never moved.
    const own = est.returns.slice();
    await filterReturns(pool, own, assets, recursions, false);
    t.equal(own.byteLength, est.returns.byteLength, "a caller's whole lead stays with the caller");
  });
}
