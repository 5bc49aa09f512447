// Importance sampling (method_options.variance_reduction "importance_sampling") through the real
// service: the weighted figures agree with plain Monte Carlo within their combined standard errors
// (failures counted against the expected rate), the single-asset closed form lies within 3 reported
// standard errors, the reported standard error matches the spread over 200 seeds, the variance falls
// far below plain Monte Carlo's, and the methods and requests it does not apply to are refused.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { normalQuantile } from '../../src/risk/numerics/distributions.js';
import { allowedMisses } from '../helpers/allowed-misses.js';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

const s = await startTestService();
t.teardown(() => s.stop());
const upload = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body;
const ds = upload.dataset_id as string;
const BOOK = [
  { symbol: 'AAPL', market_value: 600_000 },
  { symbol: 'KO', market_value: -250_000 },
  { symbol: 'JPM', market_value: 400_000 },
];
type Metrics = Record<string, number>;
/** How often a figure falls 3 standard errors out when the error is itself estimated from 20
 * batches: a t distribution with 19 degrees of freedom, P(|t| > 3) = 0.0074. */
const MISS_RATE = 0.0074;
const body = (seed: number, over: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
  ...calcBody(ds, { simulations: 20_000, time_horizon: 10, confidence_level: 0.99, ...over }),
  portfolio: undefined,
  portfolio_value: undefined,
  positions: BOOK,
  method_options: { seed, ...options },
});
const IS = { variance_reduction: 'importance_sampling' };

/** Φ(x), by bisection on the quantile function. */
function normalCdf(x: number): number {
  let [lo, hi] = [0, 1];
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (normalQuantile(mid) < x) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

async function metricsOf(request: Record<string, unknown>): Promise<{ metrics: Metrics; meta: Record<string, unknown> }> {
  const r = await calculate(s.base, s.key, request);
  if (r.status !== 200) throw new Error(`${r.status}: ${r.text.slice(0, 300)}`);
  return { metrics: r.body.meta.metrics, meta: r.body.meta };
}

t.test('weighted and plain figures agree within their combined standard errors, on each model', async (t) => {
  const models = [{}, { portfolio_mode: 'rebalanced' }, { method: 'monte_carlo_student_t', degrees_of_freedom: 8 }];
  let misses = 0;
  let checks = 0;
  for (const model of models) {
    let plainVariance = 0;
    let weightedVariance = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const plain = (await metricsOf(body(seed, model))).metrics;
      const { metrics: weighted, meta } = await metricsOf(body(seed, model, IS));
      t.equal(meta.variance_reduction, 'importance_sampling');
      for (const [figure, se] of [
        ['value_at_risk', 'value_at_risk_standard_error'],
        ['expected_shortfall', 'expected_shortfall_standard_error'],
      ] as const) {
        checks++;
        if (Math.abs(plain[figure]! - weighted[figure]!) > 3 * Math.hypot(plain[se]!, weighted[se]!)) misses++;
      }
      plainVariance += plain.expected_shortfall_standard_error! ** 2;
      weightedVariance += weighted.expected_shortfall_standard_error! ** 2;
    }
    t.ok(weightedVariance < plainVariance / 2, `${JSON.stringify(model)}: ES variance ${plainVariance / weightedVariance} times smaller`);
  }
  t.ok(misses <= allowedMisses(checks, MISS_RATE), `${misses} of ${checks} outside 3 combined standard errors`);
});

t.test('a single asset: the closed forms lie within 3 reported standard errors', async (t) => {
  let misses = 0;
  const seeds = 20;
  for (let seed = 100; seed < 100 + seeds; seed++) {
    const request = { ...body(seed, {}, IS), positions: undefined, portfolio: [{ symbol: 'JPM', weight: 1 }], portfolio_value: 1_000_000 };
    const { metrics, meta } = await metricsOf(request);
    const estimation = meta.estimation as { daily_mean: Record<string, number>; daily_volatility: Record<string, number> };
    // P&L = V(e^R − 1), R ~ N(Tμ, Tσ²) (oracles.md): VaR and ES of the lognormal exactly.
    const [mu, sigma, T, c] = [estimation.daily_mean.JPM!, estimation.daily_volatility.JPM!, 10, 0.99];
    const s10 = Math.sqrt(T) * sigma;
    const closedVar = -1e6 * Math.expm1(T * mu + s10 * normalQuantile(1 - c));
    const closedEs = -1e6 * ((Math.exp(T * mu + (s10 * s10) / 2) * normalCdf(normalQuantile(1 - c) - s10)) / (1 - c) - 1);
    const outside =
      Math.abs(metrics.value_at_risk! - closedVar) > 3 * metrics.value_at_risk_standard_error! ||
      Math.abs(metrics.expected_shortfall! - closedEs) > 3 * metrics.expected_shortfall_standard_error!;
    if (outside) misses++;
  }
  t.ok(misses <= allowedMisses(seeds * 2, MISS_RATE), `${misses} of ${seeds} seeds outside 3 reported standard errors`);
});

t.test('the reported standard errors match the spread over 200 seeds within 20 %', async (t) => {
  const runs: Metrics[] = [];
  for (let seed = 1_000; seed < 1_200; seed++) runs.push((await metricsOf(body(seed, { simulations: 8_192 }, IS))).metrics);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [figure, se] of [
    ['value_at_risk', 'value_at_risk_standard_error'],
    ['expected_shortfall', 'expected_shortfall_standard_error'],
  ] as const) {
    const xs = runs.map((m) => m[figure]!);
    const m = mean(xs);
    const spread = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    const reported = mean(runs.map((r) => r[se]!));
    t.ok(Math.abs(reported / spread - 1) <= 0.2, `${figure}: reported ${reported.toFixed(1)}, spread over 200 seeds ${spread.toFixed(1)}`);
  }
});

t.test('with a target error it stops sooner than plain Monte Carlo; the figures add up', async (t) => {
  const target = { target_relative_error: 0.005 };
  const plain = await metricsOf(body(3, { simulations: 4_000_000 }, target));
  const weighted = await metricsOf(body(3, { simulations: 4_000_000 }, { ...IS, ...target }));
  const used = (m: Record<string, unknown>) => (m.precision as { simulations_used: number; reached: boolean }).simulations_used;
  t.equal((weighted.meta.precision as { reached: boolean }).reached, true);
  t.ok(used(weighted.meta) * 8 <= used(plain.meta), `importance sampling used ${used(weighted.meta)}, plain ${used(plain.meta)}`);
  const r = await calculate(s.base, s.key, body(3, { simulations: 50_000 }, IS));
  const contributions = r.body.meta.contributions as { component_es: number; component_var: number }[];
  const sum = (key: 'component_es' | 'component_var') => contributions.reduce((a, c) => a + c[key], 0);
  t.ok(Math.abs(sum('component_es') / r.body.meta.metrics.expected_shortfall - 1) < 1e-9, 'component ES adds up to ES');
  t.ok(Math.abs(sum('component_var') / r.body.meta.metrics.value_at_risk - 1) < 1e-9, 'component VaR adds up to VaR');
  const again = await calculate(s.base, s.key, body(3, { simulations: 50_000 }, IS));
  t.same(again.body.meta.metrics, r.body.meta.metrics, 'the same request and seed: the same figures');
});

t.test('a what-if prices both books on the same weighted scenarios', async (t) => {
  const r = await calculate(s.base, s.key, { ...body(5, { simulations: 30_000 }, IS), what_if: { trades: [{ symbol: 'XOM', market_value: 200_000 }] } });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const w = r.body.meta.what_if;
  t.ok(Number.isFinite(w.incremental_es) && w.incremental_es_standard_error > 0);
  t.ok(
    w.incremental_es_standard_error < r.body.meta.metrics.expected_shortfall_standard_error,
    'common random numbers: the difference is sharper than either figure',
  );
});

t.test('refused where it does not apply, with the field named', async (t) => {
  const at = ['body', 'method_options', 'variance_reduction'];
  for (const method of ['historical', 'parametric_normal']) {
    const r = await calculate(s.base, s.key, body(1, { method }, IS));
    t.equal(r.status, 422, `${method}: refused`);
    t.same(r.body.detail.errors[0].loc, at);
  }
  const least = ABI.MIN_IMPORTANCE_DEGREES_OF_FREEDOM;
  const heavy = await calculate(s.base, s.key, body(1, { method: 'monte_carlo_student_t', degrees_of_freedom: least - 1 }, IS));
  t.equal(heavy.status, 422, `Student-t below ν = ${least}: refused`);
  t.match(heavy.body.detail.errors[0].msg, /degrees_of_freedom ≥ 5/);
  const edge = await calculate(s.base, s.key, body(1, { method: 'monte_carlo_student_t', degrees_of_freedom: least }, IS));
  t.equal(edge.status, 200, `Student-t at ν = ${least}: answered`);
  const batch = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', {
    key: s.key,
    json: { ...body(1, {}, IS), positions: undefined, books: [{ id: 'a', positions: BOOK }] },
  });
  t.equal(batch.status, 422, 'a batch: refused');
  t.same(batch.body.detail.errors[0].loc, at);
  const unknown = await calculate(s.base, s.key, body(1, {}, { variance_reduction: 'control_variates' }));
  t.equal(unknown.status, 422, 'an unknown variance reduction: refused');
  // Every scenario's position P&L is kept: simulations × assets meets the tail memory bound.
  const symbols = (upload.dataset.symbols as string[]).slice(0, 10);
  const wide = { ...body(1, { simulations: 10_000_000 }, IS), positions: symbols.map((symbol) => ({ symbol, market_value: 100_000 })) };
  const big = await calculate(s.base, s.key, wide);
  t.equal(big.status, 422, '10M simulations × 10 assets: beyond the tail memory bound');
  t.same(big.body.detail.errors[0].loc, ['body', 'simulations']);
  t.match(big.body.detail.message, /importance sampling keeps every scenario/);
  const none = await metricsOf(body(9, {}, { variance_reduction: 'none' }));
  const omitted = await metricsOf(body(9));
  t.same(none.metrics, omitted.metrics, '"none" is the default');
});
