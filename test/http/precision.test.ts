// Precision on demand (method_options.target_relative_error): rounds until the standard errors of
// VaR and ES reach the target or the cap, reported in meta.precision; the figures are those of a
// plain request for the simulations used; the bounds and the methods it applies to.
import t from 'tap';
import { bitJson } from '../helpers/bit-json.js';
import { TARGET_RELATIVE_ERROR } from '../../src/contract/schemas.js';
import { normalQuantile } from '../../src/risk/numerics/distributions.js';
import { roundSchedule } from '../../src/risk/precision.js';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

const s = await startTestService();
t.teardown(() => s.stop());
const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
const precise = (target: number, over: Record<string, unknown> = {}) =>
  calcBody(ds, { simulations: 2_000_000, time_horizon: 1, ...over, method_options: { seed: 7, target_relative_error: target } });

t.test('rounds until VaR and ES are within the target; the figures are those of a plain request', async (t) => {
  const target = 0.01;
  const r = await calculate(s.base, s.key, precise(target));
  t.equal(r.status, 200, r.text.slice(0, 300));
  const { precision, metrics, simulations } = r.body.meta;
  t.equal(precision.target, target);
  t.equal(precision.reached, true);
  t.ok(precision.achieved_var <= target && precision.achieved_es <= target, `achieved ${precision.achieved_var}, ${precision.achieved_es}`);
  const schedule = roundSchedule(2_000_000);
  t.equal(precision.simulations_used, schedule[precision.rounds - 1], 'the count of its round in the fixed schedule');
  t.equal(simulations, precision.simulations_used, 'meta.simulations is the count used');
  t.equal(metrics.expected_shortfall_standard_error / metrics.expected_shortfall, precision.achieved_es);

  const plain = await calculate(s.base, s.key, calcBody(ds, { simulations: precision.simulations_used, time_horizon: 1, method_options: { seed: 7 } }));
  t.equal(bitJson(plain.body.meta.metrics), bitJson(metrics), 'bit for bit the plain request with that many simulations');
  t.equal(bitJson(plain.body.meta.contributions), bitJson(r.body.meta.contributions));
  t.equal(plain.body.meta.precision, undefined, 'no precision block without a target');
  if (precision.rounds > 1) {
    const before = await calculate(s.base, s.key, calcBody(ds, { simulations: schedule[precision.rounds - 2], time_horizon: 1, method_options: { seed: 7 } }));
    const m = before.body.meta.metrics;
    const relVar = m.value_at_risk_standard_error / m.value_at_risk;
    const relEs = m.expected_shortfall_standard_error / m.expected_shortfall;
    t.ok(relVar > target || relEs > target, `the round before had not reached it (${relVar}, ${relEs})`);
  }
  const again = await calculate(s.base, s.key, precise(target));
  t.same(again.body.meta.precision, precision, 'the same request and seed stop at the same round');
  t.same(again.body.meta.metrics, metrics);
});

t.test('the cap stops the rounds: reached false, every simulation of the cap used', async (t) => {
  const r = await calculate(s.base, s.key, precise(TARGET_RELATIVE_ERROR.min, { simulations: 20_000 }));
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.match(r.body.meta.precision, { target: TARGET_RELATIVE_ERROR.min, reached: false, simulations_used: 20_000, rounds: 2 });
  t.ok(r.body.meta.precision.achieved_es > TARGET_RELATIVE_ERROR.min);
  const small = await calculate(s.base, s.key, precise(TARGET_RELATIVE_ERROR.max, { simulations: 100 }));
  t.match(small.body.meta.precision, { simulations_used: 100, rounds: 1 }, 'a cap below the first round is the only round');
});

t.test('a single asset: the closed form lies within 3 reported standard errors', async (t) => {
  const r = await calculate(
    s.base,
    s.key,
    precise(0.005, { portfolio: [{ symbol: 'JPM', weight: 1 }], confidence_level: 0.99, time_horizon: 10, simulations: 4_000_000 }),
  );
  t.equal(r.status, 200, r.text.slice(0, 300));
  const { metrics, estimation, precision, portfolio_value } = r.body.meta;
  t.equal(precision.reached, true);
  // P&L = V(e^R − 1), R ~ N(Tμ, Tσ²): VaR = −V(e^{Tμ + √T σ z_{0.01}} − 1).
  const mu = estimation.daily_mean.JPM as number;
  const sigma = estimation.daily_volatility.JPM as number;
  const closedVar = -portfolio_value * Math.expm1(10 * mu + Math.sqrt(10) * sigma * normalQuantile(0.01));
  const within = Math.abs(metrics.value_at_risk - closedVar) / metrics.value_at_risk_standard_error;
  t.ok(within <= 3, `VaR ${metrics.value_at_risk} vs closed form ${closedVar}: ${within.toFixed(2)} standard errors`);
});

t.test('a batch: the target holds for every book', async (t) => {
  const body = {
    ...precise(0.02),
    portfolio: undefined,
    books: [
      { id: 'a', portfolio: [{ symbol: 'AAPL', weight: 1 }] },
      {
        id: 'b',
        portfolio: [
          { symbol: 'KO', weight: 0.5 },
          { symbol: 'PG', weight: 0.5 },
        ],
      },
    ],
  };
  const r = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', { key: s.key, json: body });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const { precision, books } = r.body.meta;
  t.equal(precision.reached, true);
  const worst = Math.max(
    ...books.map((b: { metrics: Record<string, number> }) => b.metrics.expected_shortfall_standard_error! / b.metrics.expected_shortfall!),
  );
  t.equal(precision.achieved_es, worst, 'achieved is the worst book');

  // 16 books are split over the workers: the rounds give the same figures as a plain batch too.
  const many = { ...body, books: Array.from({ length: 16 }, (_, i) => ({ id: `b${i}`, portfolio: [{ symbol: i % 2 ? 'JPM' : 'XOM', weight: 1 }] })) };
  const split = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', { key: s.key, json: many });
  t.equal(split.status, 200, split.text.slice(0, 300));
  t.ok(split.body.meta.engine.batches > 1, 'the books were split over tasks');
  const plain = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', {
    key: s.key,
    json: { ...many, simulations: split.body.meta.precision.simulations_used, method_options: { seed: 7 } },
  });
  t.same(
    plain.body.meta.books.map((b: { metrics: unknown }) => b.metrics),
    split.body.meta.books.map((b: { metrics: unknown }) => b.metrics),
    'bit for bit the plain batch with that many simulations',
  );
});

t.test('the bounds, and the methods a target applies to', async (t) => {
  const at = ['body', 'method_options', 'target_relative_error'];
  for (const target of [TARGET_RELATIVE_ERROR.min, TARGET_RELATIVE_ERROR.max]) {
    t.equal((await calculate(s.base, s.key, precise(target, { simulations: 1_000 }))).status, 200, `${target} accepted`);
  }
  for (const target of [0, 0.0004999, 0.1000001, 1, -0.01]) {
    const r = await calculate(s.base, s.key, precise(target, { simulations: 1_000 }));
    t.equal(r.status, 422, `${target} refused`);
    t.same(r.body.detail.errors[0].loc, at);
  }
  for (const method of ['historical', 'parametric_normal']) {
    const r = await calculate(s.base, s.key, precise(0.01, { method }));
    t.equal(r.status, 422, `${method}: refused`);
    t.same(r.body.detail.errors[0].loc, at);
  }
  const student = await calculate(s.base, s.key, precise(0.05, { method: 'monte_carlo_student_t', simulations: 50_000 }));
  t.equal(student.status, 200, 'Student-t takes a target too');
  const bt = await call(s.base, 'POST', '/api/v1/risk/backtest', { key: s.key, json: { ...precise(0.01, { simulations: 1_000 }) } });
  t.equal(bt.status, 422, 'a backtest refuses it');
  t.same(bt.body.detail.errors[0].loc, at);
});
