// A live book wider than one P&L group (40 symbols: groups of 16, 16 and 8 assets). Every update
// prices it with the group sums the subscription keeps (natively, only the groups whose exposures
// moved are summed again), and each answer equals calculate's bit for bit in all four builds, as
// one position moves, several move, a sign flips or every value scales; the native builds leave
// the sums whole (clean) after each update.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { type AnswerMemory, type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../../src/engine/ops.js';
import { calculate } from '../../src/risk/calculate.js';
import { LivePricing } from '../../src/risk/live-pricing.js';
import { bitJson } from '../helpers/bit-json.js';
import { validateRequest } from '../helpers/calculation-domain.js';
import { fourBuilds, OWNER, storeSyntheticDataset } from '../helpers/four-builds.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { without } from '../helpers/without.js';

/** Keeps the group sums each OP_SIMULATE_KEPT was given. */
class Recording implements EngineExecutor {
  readonly sums: Float64Array[] = [];
  constructor(private readonly inner: EngineExecutor) {}
  run(op: OpCode, input: EngineInput, signal?: AbortSignal, lead?: Float64Array, answer?: AnswerMemory, sums?: Float64Array): Promise<EngineReply> {
    if (op === ABI.OP_SIMULATE_KEPT && sums) this.sums.push(sums);
    return this.inner.run(op, input, signal, lead, answer, sums);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const figures = (body: { meta: any }) => bitJson(without(body.meta, 'calculation_id', 'timing_ms'));

t.test('a wide live book priced on its kept group sums has calculate’s figures in every build', async (t) => {
  const { store, id, symbols } = await storeSyntheticDataset(40, 300);
  const request = (values: number[]) =>
    validateRequest({
      dataset_id: id,
      method: 'monte_carlo_normal',
      method_options: { seed: 11 },
      currency: 'USD',
      positions: symbols.map((symbol, i) => ({ symbol, market_value: values[i]! })),
      simulations: 3_000,
      confidence_level: 0.99,
      time_horizon: 10,
    });
  const moves: [string, (v: number[], rand: () => number) => void][] = [
    ['first', () => undefined],
    ['one position', (v, rand) => (v[Math.floor(rand() * v.length)]! *= 1.01)],
    ['the same book', () => undefined],
    ['the last group', (v) => (v[39]! += 1_000)],
    ['several groups', (v, rand) => [0, 17, 33].forEach((i) => (v[i] = 100_000 * (rand() - 0.5)))],
    ['a sign', (v) => (v[5] = -v[5]!)],
    ['every value', (v) => v.forEach((x, i) => (v[i] = x * 1.5))],
  ];
  for (const build of fourBuilds(store)) {
    const exec = new Recording(build.deps.executor);
    const pricing = new LivePricing({ ...build.deps, executor: exec }, OWNER);
    const rand = mulberry32(7);
    const values = symbols.map((_, i) => (i % 4 === 3 ? -1 : 1) * (50_000 + 1_000 * i));
    for (const [name, move] of moves) {
      move(values, rand);
      const live = await pricing.price(request(values));
      const full = await calculate(request(values), OWNER, build.deps);
      t.equal(figures(live), figures(full), `${build.name}: ${name}`);
      if (build.name.startsWith('native')) t.ok(exec.sums.at(-1)?.[0] === 1, `${build.name}: ${name}: the group sums whole after it`);
    }
    t.ok(exec.sums.length >= moves.length - 1, `${build.name}: every update given the group sums`);
    t.ok(
      exec.sums.every((s) => s.buffer instanceof SharedArrayBuffer),
      `${build.name}: in shared memory`,
    );
  }
});
