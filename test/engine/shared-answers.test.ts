// Answers made in shared memory (Engine.callShared, a task's answer 'shared'): the same bits as the
// engine's own answer on the four builds, written in place where the length is known up front
// (option columns) and copied otherwise (a refusal, another operation); through the pool they reach
// this thread as the worker's own memory, and kept scenarios are made of them without a copy.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { sharedAnswer } from '../../src/engine/ops.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { keptFrom } from '../../src/risk/kept-scenarios.js';
import { bitJson } from '../helpers/bit-json.js';
import { fourEngines } from '../helpers/four-engines.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { gaussian } from '../helpers/price-series.js';

const ASSETS = 4;
const BLOCKS = 2;
const OPTIONS = 6;

/** Kept scenarios (no tails kept) in shared memory, as the service holds them, and option fields. */
function drawn(seed: number): { lead: Float64Array; rest: Float64Array } {
  const rand = mulberry32(seed);
  const units = Array.from({ length: ASSETS * ABI.BLOCK * BLOCKS }, () => Math.expm1(0.04 * gaussian(rand)));
  const fields: number[] = [];
  for (let i = 0; i < OPTIONS; i++) {
    const spot = 10 + 200 * rand();
    fields.push(
      i % ASSETS,
      [ABI.VALUATION_FULL, ABI.VALUATION_DELTA_GAMMA, ABI.VALUATION_DELTA][i % 3]!,
      i % 2 ? ABI.OPTION_CALL : ABI.OPTION_PUT,
      ABI.MODEL_BLACK_SCHOLES,
      spot,
      spot * (0.8 + 0.4 * rand()),
      0.1 + rand(),
      0.02,
      0.01,
      i === 0 ? 0 : 2 * rand(),
      ABI.OPTION_NO_FX,
    );
  }
  return { lead: sharedAnswer(Float64Array.from([units.length, ...units, 0, 0])), rest: Float64Array.from([ASSETS, 10, OPTIONS, ...fields]) };
}

const bits = (a: Float64Array) => bitJson(Array.from(a));

t.test('callShared: the engine’s answer, in shared memory, on the four builds', async (t) => {
  const builds = fourEngines();
  const { lead, rest } = drawn(7);
  const refused = Float64Array.from(rest);
  refused[3 + 5] = 0; // the first option's strike: refused, and its answer's length is not known up front
  const greeks = Float64Array.from([OPTIONS, ...rest.subarray(3)]);
  const want = builds[0]!.call(ABI.OP_OPTION_UNITS, rest, lead);
  t.equal(want[0], 0, 'the option columns are priced');
  t.equal(want.length, 2 + (ASSETS + OPTIONS) * ABI.BLOCK * BLOCKS + 2, 'status, count, units and columns, no tails');
  for (const e of builds) {
    for (const [name, op, input, led] of [
      ['option columns', ABI.OP_OPTION_UNITS, rest, lead],
      ['a refused option', ABI.OP_OPTION_UNITS, refused, lead],
      ['Greeks, no lead', ABI.OP_OPTION_GREEKS, greeks, undefined],
    ] as const) {
      const own = e.call(op, input, led);
      const shared = e.callShared(op, input, led);
      t.ok(shared.buffer instanceof SharedArrayBuffer, `${e.build} ${name}: in shared memory`);
      t.equal(bits(shared), bits(own), `${e.build} ${name}: the same bits as its own answer`);
    }
    t.equal(bits(e.callShared(ABI.OP_OPTION_UNITS, rest, lead)), bits(want), `${e.build}: the same bits as ${builds[0]!.build}`);
    t.equal(e.callShared(ABI.OP_OPTION_UNITS, refused, lead)[0], ABI.ERR_INVALID_INPUT, `${e.build}: the refusal is the engine's`);
  }
  // The native addon knows the option columns' length before pricing them (so writes them in
  // place), and says it does not for a refusal or another operation.
  for (const e of builds.filter((b) => b instanceof NativeEngine)) {
    const addon = (e as unknown as { addon: { engineAnswerLength(op: number, lead: Float64Array, input: Float64Array): number } }).addon;
    t.equal(addon.engineAnswerLength(ABI.OP_OPTION_UNITS, lead, rest), want.length, `${e.build}: the columns' length up front`);
    t.equal(addon.engineAnswerLength(ABI.OP_OPTION_UNITS, lead, refused), -1, `${e.build}: none for a refusal`);
    t.equal(addon.engineAnswerLength(ABI.OP_OPTION_GREEKS, lead, greeks), -1, `${e.build}: none for another operation`);
  }
});

t.test('through the pool: the worker’s shared answer is kept as it is', async (t) => {
  const pool = new EnginePool(resolveEngineSource('native'), 1, 8);
  t.teardown(() => pool.close());
  const { lead, rest } = drawn(8);
  const own = await pool.run(ABI.OP_OPTION_UNITS, Float64Array.from(rest), undefined, lead);
  const shared = await pool.run(ABI.OP_OPTION_UNITS, Float64Array.from(rest), undefined, lead, 'shared');
  t.notOk(own.output.buffer instanceof SharedArrayBuffer, 'asked for its own memory: moved from the worker');
  t.ok(shared.output.buffer instanceof SharedArrayBuffer, 'asked shared: made in shared memory by the worker');
  t.equal(bits(shared.output), bits(own.output), 'the same bits either way');
  const batches = [{ first: 0, end: BLOCKS }];
  const kept = keptFrom(batches, [shared]);
  t.equal(kept.units[0]!.buffer, shared.output.buffer, 'kept scenarios are the shared answer itself, not a copy');
  t.equal(bits(kept.units[0]!), bits(keptFrom(batches, [own]).units[0]!), 'and hold what a copy of its own answer holds');
  t.equal(kept.bytes, (own.output.length - 1) * 8, 'their bytes: the answer after its status word');
});
