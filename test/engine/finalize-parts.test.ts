// OP_FINALIZE's input as parts (the count, then each task's partial as it came back): the native
// builds read the partials where they lie, the WASM builds copy them in one after another, and no
// thread joins them first. Every build answers over the parts what it answers over them joined —
// calculations split into several tasks, and layouts the in-place path does not take (a partial cut
// in two, two in one part, a wrong count) — and the pool moves the parts to its worker, not copies
// (a view into a larger buffer is cloned); an addon without the entry point is refused at load. A
// split finalize (OP_FINALIZE_PART, OP_FINALIZE_SPLIT) takes its input as parts too: its partials,
// made in shared memory, go to a part and to the merge as they are.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { finalizeInput, finalizeSplitInput } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { joinedInput, sharedAnswer, type Engine, type EngineExecutor, type EngineInput } from '../../src/engine/ops.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { calculate } from '../../src/risk/calculate.js';
import { bitJson } from '../helpers/bit-json.js';
import { validateRequest } from '../helpers/calculation-domain.js';
import { comparable, fourBuilds, OWNER, storeSyntheticDataset } from '../helpers/four-builds.js';

const bits = (a: Float64Array) => bitJson(Array.from(a));

/** The partials of every OP_FINALIZE the executor is asked to run (copies: the call may move them). */
function capturing(inner: EngineExecutor, into: Float64Array[][]): EngineExecutor {
  return {
    run(op, input, signal, lead, answer) {
      if (op === ABI.OP_FINALIZE && !(input instanceof Float64Array)) into.push(input.slice(1).map((p) => p.slice()));
      return inner.run(op, input, signal, lead, answer);
    },
  };
}

/** Partials of calculations split over several tasks (three books' worth of shapes). */
async function drawnPartials(): Promise<Float64Array[][]> {
  const { store, id, symbols } = await storeSyntheticDataset(5, 300);
  const seen: Float64Array[][] = [];
  const build = fourBuilds(store).find((b) => b.name === 'native-x86-64')!; // 7 tasks
  // One OP_FINALIZE over the 7 tasks' partials (the helper's builds split the finalize too).
  const deps = { ...build.deps, executor: capturing(build.deps.executor, seen), batchSplit: { minBlocksPerBatch: 1, finalizeParts: 1 } };
  const requests = [
    { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 4 } },
    { method: 'monte_carlo_student_t', simulations: 9_000, method_options: { seed: 5, antithetic: true }, confidence_level: 0.95 },
    { method: 'historical', portfolio_mode: 'rebalanced', confidence_level: 0.999 },
  ];
  for (const over of requests) {
    const req = validateRequest({
      dataset_id: id,
      currency: 'USD',
      confidence_level: 0.99,
      time_horizon: 5,
      positions: symbols.map((symbol, i) => ({ symbol, market_value: (i % 2 ? -1 : 1) * 100_000 * (i + 1) })),
      ...over,
    });
    await calculate(req, OWNER, deps);
  }
  return seen;
}

t.test('every build answers OP_FINALIZE over its parts as over them joined', async (t) => {
  const runs = await drawnPartials();
  t.ok(runs.length >= 2 && runs.every((r) => r.length >= 2), 'calculations split into several tasks');
  const builds: Engine[] = [
    instantiateEngine(resolveEngineSource('wasm')),
    instantiateEngine(resolveEngineSource('wasm-scalar')),
    instantiateEngine(resolveEngineSource('native')),
    NativeEngine.baseline(),
  ];
  for (const partials of runs) {
    const [a, b] = [partials[0]!.subarray(0, 7), partials[0]!.subarray(7)];
    const layouts: [string, EngineInput, boolean][] = [
      ['one partial per part', finalizeInput(partials), true],
      ['in reverse order', finalizeInput([...partials].reverse()), true],
      ['a partial cut in two', [Float64Array.of(partials.length), a, b, ...partials.slice(1)], true],
      ['two partials in one part', [Float64Array.of(partials.length), joinedInput(partials.slice(0, 2)), ...partials.slice(2)], true],
      ['a count short by one', [Float64Array.of(partials.length - 1), ...partials], false],
      ['a partial missing', finalizeInput(partials.slice(1)), false],
    ];
    const want = bits(builds[0]!.call(ABI.OP_FINALIZE, joinedInput(finalizeInput(partials))));
    for (const [name, input, answered] of layouts) {
      const joined = bits(builds[0]!.call(ABI.OP_FINALIZE, joinedInput(input)));
      t.equal(joined === want, answered, `${name}: ${answered ? 'the figures' : 'refused'} over the joined input`);
      for (const e of builds) t.equal(bits(e.call(ABI.OP_FINALIZE, input)), joined, `${e.build}, ${name}: as over the joined input`);
    }
    // A split finalize: each part's partials, then the summaries and every partial, as parts.
    const cut = Math.ceil(partials.length / 2);
    const halves = [partials.slice(0, cut), partials.slice(cut)];
    for (const e of builds) {
      const summaries = halves.map((half) => e.call(ABI.OP_FINALIZE_PART, finalizeInput(half)));
      t.same(
        summaries.map((s, i) => bits(s) === bits(e.call(ABI.OP_FINALIZE_PART, joinedInput(finalizeInput(halves[i]!))))),
        [true, true],
        `${e.build}: OP_FINALIZE_PART over parts as over them joined`,
      );
      const split = finalizeSplitInput(summaries, partials);
      t.equal(bits(e.call(ABI.OP_FINALIZE_SPLIT, split)), want, `${e.build}: OP_FINALIZE_SPLIT over parts gives OP_FINALIZE's figures`);
      const cutSummary = [split[0]!, summaries[0]!.subarray(0, 3), summaries[0]!.subarray(3), ...split.slice(2)];
      t.equal(bits(e.call(ABI.OP_FINALIZE_SPLIT, cutSummary)), want, `${e.build}: a summary cut in two is joined, the same figures`);
    }
  }
});

t.test('a split finalize shares each partial with its part and the merge: nothing joined on the way', async (t) => {
  const { store, id, symbols } = await storeSyntheticDataset(5, 300);
  const build = fourBuilds(store).find((b) => b.name === 'native-x86-64')!; // 7 tasks
  const calls: { op: number; input: EngineInput; answer: string | undefined }[] = [];
  // The helper's executors answer in their own memory whatever is asked: this one as asked.
  const direct = new DirectExecutor(NativeEngine.baseline());
  const recording: EngineExecutor = {
    run(op, input, signal, lead, answer) {
      calls.push({ op, input, answer });
      return direct.run(op, input, signal, lead, answer);
    },
  };
  const req = validateRequest({
    dataset_id: id,
    currency: 'USD',
    confidence_level: 0.99,
    time_horizon: 5,
    method: 'monte_carlo_normal',
    simulations: 20_000,
    method_options: { seed: 4 },
    positions: symbols.map((symbol, i) => ({ symbol, market_value: 100_000 * (i + 1) })),
  });
  const single = await calculate(req, OWNER, { ...build.deps, batchSplit: { minBlocksPerBatch: 1, finalizeParts: 1 } });
  const split = await calculate(req, OWNER, { ...build.deps, executor: recording, batchSplit: { minBlocksPerBatch: 1, finalizeParts: 3 } });
  t.equal(comparable({ ok: true, body: split }), comparable({ ok: true, body: single }), 'the same figures as one OP_FINALIZE');
  const of = (op: number) => calls.filter((c) => c.op === op);
  const simulated = of(ABI.OP_SIMULATE_OWN_TAILS);
  t.ok(simulated.length >= 3 && simulated.every((c) => c.answer === 'shared'), 'the simulate tasks answer in shared memory');
  const parts = of(ABI.OP_FINALIZE_PART);
  const [merge] = of(ABI.OP_FINALIZE_SPLIT);
  t.equal(parts.length, 3, 'three finalize parts');
  t.ok(merge && !(merge.input instanceof Float64Array), 'the merge takes its input as parts');
  const partsOf = (input: EngineInput) => (input instanceof Float64Array ? [] : input);
  const partialsOfParts = parts.flatMap((c) => partsOf(c.input).slice(1));
  const mergeInput = partsOf(merge!.input);
  const partialsOfMerge = mergeInput.slice(2 + parts.length);
  t.equal(partialsOfMerge.length, simulated.length, 'every partial goes to the merge');
  t.ok(
    partialsOfMerge.every((p, i) => p === partialsOfParts[i] && p.buffer instanceof SharedArrayBuffer),
    'the merge reads the very shared partials the parts read',
  );
  t.ok(
    mergeInput.slice(1, 1 + parts.length).every((s) => s.byteOffset === 0 && s.byteLength === s.buffer.byteLength),
    'each summary is its buffer\'s whole view (what a pool moves rather than clones)',
  );
});

t.test('the pool moves a finalize’s parts to its worker; shared ones are posted as they are', async (t) => {
  const [partials] = await drawnPartials();
  const direct = instantiateEngine(resolveEngineSource('native')).call(ABI.OP_FINALIZE, finalizeInput(partials!));
  t.equal(direct[0], 0, 'the figures');
  const pool = new EnginePool(resolveEngineSource('native'), 1, 4);
  try {
    const moved = partials!.map((p) => p.slice());
    const reply = await pool.run(ABI.OP_FINALIZE, finalizeInput(moved));
    t.equal(bits(reply.output), bits(direct), 'the same bits through the pool');
    t.ok(
      moved.every((p) => p.length === 0),
      'each partial moved to the worker, not cloned',
    );
    const shared = partials!.map((p) => sharedAnswer(p.slice()));
    const again = await pool.run(ABI.OP_FINALIZE, finalizeInput(shared));
    t.equal(bits(again.output), bits(direct), 'shared partials: the same bits');
    t.ok(
      shared.every((p, i) => p.length === partials![i]!.length),
      'shared partials stay where they are',
    );
    // A view into a larger buffer is cloned, not moved: the rest of its buffer stays usable here.
    const viewed = partials!.map((p) => {
      const larger = new Float64Array(p.length + 3).fill(7);
      larger.set(p, 2);
      return larger.subarray(2, 2 + p.length);
    });
    const third = await pool.run(ABI.OP_FINALIZE, finalizeInput(viewed));
    t.equal(bits(third.output), bits(direct), 'views: the same bits');
    t.ok(
      viewed.every((p, i) => p.length === partials![i]!.length && new Float64Array(p.buffer)[0] === 7),
      'views into larger buffers are cloned, their buffers left whole',
    );
  } finally {
    await pool.close();
  }
});

t.test('an addon without an entry point the binding calls is refused at load', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'addon-'));
  const file = path.join(dir, 'old-addon.cjs');
  // An addon from before engineCallParts: every other entry point, and the same ABI.
  writeFileSync(
    file,
    'module.exports = { engineCall() {}, engineCallLed() {}, engineCallLedSummed() {}, engineAnswerLength() {}, engineCallLedInto() {}, engineBuild() { return "old"; } };',
  );
  try {
    t.throws(() => new NativeEngine(file), /lacks engineCallParts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.end();
});
