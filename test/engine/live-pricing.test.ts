// A live book's kept scenarios (risk/live-pricing.ts, OP_UNITS + OP_SIMULATE_KEPT): after the
// first pricing, each book priced on the kept units has calculate's figures bit for bit, in all
// four builds (each with its own task split) — Monte Carlo normal and Student-t (antithetic),
// historical, long/short market values, multi-currency books (their instruments kept, meta.fx from
// the book and its twin without FX) — and no scenario is drawn again; rebalanced books, which share
// no units, are calculated in full.
import t from 'tap';
import { type CalculateRequest } from '../../src/contract/schemas.js';
import { ABI } from '../../src/engine/abi.js';
import { type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../../src/engine/ops.js';
import { calculate } from '../../src/risk/calculate.js';
import { LivePricing } from '../../src/risk/live-pricing.js';
import { bitJson } from '../helpers/bit-json.js';
import { validateRequest } from '../helpers/calculation-domain.js';
import { addMultiCurrencyDataset, fourBuilds, OWNER, storeSyntheticDataset } from '../helpers/four-builds.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { without } from '../helpers/without.js';

/** Counts the operations an executor runs, and the leads it was given that were not shared memory. */
class Counting implements EngineExecutor {
  readonly ops = new Map<number, number>();
  unsharedLeads = 0;
  constructor(private readonly inner: EngineExecutor) {}
  run(op: OpCode, input: EngineInput, signal?: AbortSignal, lead?: Float64Array): Promise<EngineReply> {
    this.ops.set(op, (this.ops.get(op) ?? 0) + 1);
    if (lead && !(lead.buffer instanceof SharedArrayBuffer)) this.unsharedLeads++;
    return this.inner.run(op, input, signal, lead);
  }
}

/** Simulations drawn through `executor`: whole (OP_RUN) or split (either kind of simulate task). */
const drawn = (executor: Counting) => [ABI.OP_RUN, ABI.OP_SIMULATE, ABI.OP_SIMULATE_OWN_TAILS].reduce((a, op) => a + (executor.ops.get(op) ?? 0), 0);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const figures = (body: { meta: any }) => bitJson(without(body.meta, 'calculation_id', 'timing_ms'));

/** A Monte Carlo request over `held` at `values` (market values), with `over` on top, checked as the service checks it. */
const requestOf = (id: string, held: string[], values: number[], over: object) =>
  validateRequest({
    dataset_id: id,
    method: 'monte_carlo_normal',
    currency: 'USD',
    positions: held.map((symbol, i) => ({ symbol, market_value: values[i]! })),
    simulations: 1_500,
    ...over,
  });

t.test('books priced on kept scenarios have calculate’s figures in every build', async (t) => {
  const { store, id, symbols } = await storeSyntheticDataset(6, 400);
  const held = symbols.slice(0, 4);
  const positions = (values: number[]) => held.map((symbol, i) => ({ symbol, market_value: values[i]! }));
  const base = (over: object) =>
    requestOf(id, held, [300_000, -200_000, 150_000, 0], { method_options: { seed: 5 }, confidence_level: 0.975, time_horizon: 10, ...over });
  const cases: [string, CalculateRequest, boolean][] = [
    ['normal', base({}), true],
    ['student-t antithetic', base({ method: 'monte_carlo_student_t', method_options: { seed: 9, antithetic: true } }), true],
    ['historical', base({ method: 'historical', method_options: {}, simulations: undefined }), true],
    ['rebalanced', base({ portfolio_mode: 'rebalanced' }), false],
  ];
  const rand = mulberry32(33);
  for (const build of fourBuilds(store)) {
    for (const [name, first, kept] of cases) {
      const executor = new Counting(build.deps.executor);
      const pricing = new LivePricing({ ...build.deps, executor }, OWNER);
      const answered = await pricing.price(first);
      t.equal(figures(answered), figures(await calculate(first, OWNER, build.deps)), `${build.name} ${name}: the first pricing`);
      const drawnFirst = drawn(executor);
      let same = 0;
      for (let i = 0; i < 4; i++) {
        const values = held.map(() => Math.round((rand() - 0.4) * 1e6));
        const req = { ...first, positions: positions(values) };
        if (figures(await pricing.price(req)) === figures(await calculate(req, OWNER, build.deps))) same++;
      }
      t.equal(same, 4, `${build.name} ${name}: 4 drawn books, calculate’s figures bit for bit`);
      if (kept) {
        t.equal(drawn(executor), 0, `${build.name} ${name}: nothing drawn again`);
        t.ok((executor.ops.get(ABI.OP_SIMULATE_KEPT) ?? 0) >= 5, 'every pricing on the kept units');
        // Shared with the workers, never copied into a task's input (nor, natively, at all).
        t.equal(executor.unsharedLeads, 0, `${build.name} ${name}: the kept units are shared memory`);
      } else {
        t.equal(executor.ops.get(ABI.OP_SIMULATE_KEPT), undefined, `${build.name} ${name}: calculated in full`);
        t.ok(drawnFirst > 0);
      }
    }
  }
});

t.test('scenarios kept in several batches, their tails pooled into one, price as calculate does', async (t) => {
  // 4 symbols: batches of at least 256 blocks (plan.ts), so 140,000 scenarios make two or three.
  const { store, id, symbols } = await storeSyntheticDataset(4, 300);
  const positions = (values: number[]) => symbols.map((symbol, i) => ({ symbol, market_value: values[i]! }));
  const first = validateRequest({
    dataset_id: id,
    method: 'monte_carlo_normal',
    method_options: { seed: 18 },
    currency: 'USD',
    positions: positions([300_000, -200_000, 150_000, 50_000]),
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 140_000,
  });
  for (const build of fourBuilds(store).filter((b) => b.deps.maxBatches > 1)) {
    const leads: Float64Array[] = [];
    const executor: EngineExecutor = {
      run: (op, input, signal, lead) => {
        if (op === ABI.OP_SIMULATE_KEPT && lead) leads.push(lead);
        return build.deps.executor.run(op, input, signal, lead);
      },
    };
    const pricing = new LivePricing({ ...build.deps, executor }, OWNER);
    await pricing.price(first);
    const req = { ...first, positions: positions([-400_000, 250_000, 0, 90_000]) };
    t.equal(figures(await pricing.price(req)), figures(await calculate(req, OWNER, build.deps)), `${build.name}: calculate’s figures bit for bit`);
    const pooledElsewhere = leads.filter((lead) => lead[2 + lead[0]!] === 0 && lead.length === 3 + lead[0]!).length;
    t.ok(leads.length >= 4 && pooledElsewhere >= 2, `${build.name}: ${leads.length} kept tasks, ${pooledElsewhere} holding no tails`);
    // The pool: k > 1 kept, one value per symbol and lane (a ranked lead).
    const ranked = leads.filter((lead) => lead[2 + lead[0]!]! > 1 && lead.length === 3 + lead[0]! + 2 * lead[1 + lead[0]!]!).length;
    t.equal(ranked + pooledElsewhere, leads.length, `${build.name}: every other kept task holds its symbols' k-th values alone`);
  }
});

t.test('multi-currency books keep their instruments’ scenarios and price as calculate does, in every build', async (t) => {
  // Symbols 0 and 3 in EUR, 5 in GBP, the rest USD: reported in USD and in JPY (every conversion a cross or an inverse).
  const { store } = await storeSyntheticDataset(2, 10);
  const { id, symbols } = await addMultiCurrencyDataset(store, 6, 400);
  const held = [symbols[0]!, symbols[1]!, symbols[5]!];
  const base = (over: object) =>
    requestOf(id, held, [300_000, -200_000, 150_000], { method_options: { seed: 6 }, confidence_level: 0.99, time_horizon: 5, ...over });
  const cases: [string, CalculateRequest][] = [
    ['USD, normal', base({})],
    ['JPY, historical', base({ currency: 'JPY', method: 'historical', method_options: {}, simulations: undefined })],
    ['USD, its USD symbol alone', base({ positions: [{ symbol: held[1]!, market_value: 400_000 }] })],
  ];
  const rand = mulberry32(8);
  for (const build of fourBuilds(store)) {
    for (const [name, first] of cases) {
      const executor = new Counting(build.deps.executor);
      const pricing = new LivePricing({ ...build.deps, executor }, OWNER);
      const answered = await pricing.price(first);
      t.equal(figures(answered), figures(await calculate(first, OWNER, build.deps)), `${build.name} ${name}: the first pricing`);
      t.ok(answered.meta.fx && answered.meta.currency_breakdown, 'with meta.fx and the breakdown');
      const width = first.positions!.length;
      let same = 0;
      for (let i = 0; i < 3; i++) {
        const values = Array.from({ length: width }, () => Math.round((rand() - 0.4) * 1e6));
        const req = { ...first, positions: first.positions!.map((p, k) => ({ ...p, market_value: values[k]! })) };
        if (figures(await pricing.price(req)) === figures(await calculate(req, OWNER, build.deps))) same++;
      }
      t.equal(same, 3, `${build.name} ${name}: 3 books, calculate’s figures bit for bit`);
      t.equal(drawn(executor), 0, `${build.name} ${name}: nothing drawn again`);
      t.ok(pricing.keptColumns >= width, `${build.name} ${name}: ${pricing.keptColumns} kept columns`);
    }
  }
});
