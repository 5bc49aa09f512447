// The calculate operation end to end: every method and mode, both request shapes of the interface
// document, the response shape, Euler components, and seeded repeatability across WORKERS.
import t from 'tap';
import { calcBody, calculate, uploadFile } from '../helpers/http.js';
import { LONG_SAMPLE, startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { without } from '../helpers/without.js';

const METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'];
const PCT = ['p01', 'p05', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'];

function finiteEverywhere(x: unknown): boolean {
  if (typeof x === 'number') return Number.isFinite(x);
  if (Array.isArray(x)) return x.every(finiteEverywhere);
  if (x && typeof x === 'object') return Object.values(x).every(finiteEverywhere);
  return true;
}

t.test('calculate', async (t) => {
  const s = await startTestService({ WORKERS: '2' });
  t.teardown(() => s.stop());
  const wide = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(wide.status, 200);
  t.same(wide.body.dataset.symbols, ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC']);
  t.equal(wide.body.dataset.missing_values, 123, "KHC's early cells stay missing");
  t.match(wide.body.dataset_id, /^ds_[0-9A-Za-z]{16,}$/);
  const long = await uploadFile(s.base, s.key, LONG_SAMPLE);
  // The quality report is test/http/dataset-quality.test.ts's.
  t.same(without(long.body.dataset as Record<string, unknown>, 'quality'), {
    symbols: ['NVDA', 'BA', 'DIS'],
    rows: 1259,
    first_date: '2015-01-12',
    last_date: '2020-01-10',
    layout: 'long',
    missing_values: 0,
  });
  const ds = wide.body.dataset_id as string;

  for (const method of METHODS) {
    for (const mode of ['buy_and_hold', 'rebalanced']) {
      // The interface document's two request shapes: with and without degrees_of_freedom.
      for (const withDof of [false, true]) {
        const label = `${method} ${mode}${withDof ? ' with degrees_of_freedom' : ''}`;
        const body = calcBody(ds, { method, portfolio_mode: mode, method_options: {}, ...(withDof ? { degrees_of_freedom: 7 } : {}) });
        const r = await calculate(s.base, s.key, body);
        if (method === 'parametric_normal' && mode === 'rebalanced') {
          // The closed form is of the buy-and-hold book: refused, not answered as if rebalanced.
          t.match(r, { status: 422, body: { detail: { code: 'VALIDATION_ERROR', errors: [{ loc: ['body', 'portfolio_mode'] }] } } }, `${label}: refused`);
          continue;
        }
        t.equal(r.status, 200, `${label}: ${r.status === 200 ? 'ok' : r.text}`);
        const meta = r.body.meta;
        t.ok(finiteEverywhere(r.body), `${label}: every number finite`);
        t.equal(meta.method, method);
        t.equal(meta.portfolio_mode, mode);
        t.same(Object.keys(meta.metrics.percentiles), PCT);
        t.ok(meta.metrics.expected_shortfall >= meta.metrics.value_at_risk, `${label}: ES ≥ VaR`);
        t.equal(meta.metrics.value_at_risk_pct, meta.metrics.value_at_risk / 1_000_000);
        const sum = meta.contributions.reduce((a: number, c: { component_es: number }) => a + c.component_es, 0);
        t.ok(Math.abs(sum / meta.metrics.expected_shortfall - 1) < 1e-9, `${label}: components sum to ES`);
        t.same(
          meta.contributions.map((c: { symbol: string }) => c.symbol),
          ['AAPL', 'MSFT', 'KHC'],
        );
        t.equal(meta.degrees_of_freedom, method === 'monte_carlo_student_t' ? (withDof ? 7 : 5) : null);
        const mc = method.startsWith('monte_carlo');
        t.equal(meta.seed === null, !mc, `${label}: seed only for Monte Carlo`);
        t.equal(meta.simulations, method === 'parametric_normal' ? null : method === 'historical' ? 1138 - 10 + 1 : 20_000);
        t.equal(meta.estimation.observations, 1138);
        t.equal(meta.estimation.first_date, '2015-07-06', 'first date on which KHC has a price');
        t.equal(meta.estimation.last_date, '2020-01-10');
        t.equal(meta.variance_reduction, mc ? 'none' : null, `${label}: variance reduction only for Monte Carlo`);
        const { importance_sampling: weighting, ...conventions } = meta.conventions;
        t.match(weighting, /the VaR scenario J is the first whose cumulative weight reaches alpha N; VaR = -x_J/);
        t.same(conventions, {
          var_sign: 'loss_positive',
          quantile: 'k=ceil((1-c)N)',
          es: 'mean of k worst',
          percentiles: 'p_q = x_(ceil(q N)), P&L ascending',
          component_es: 'Euler: -mean of the position P&L over the k worst scenarios; sums to ES',
          component_var: '-mean of the position P&L over the scenarios ranked k-m..k+m, m=max(1,floor(sqrt(k))), rescaled to sum to VaR; parametric: Euler',
          marginal: 'component / exposure; 0 where the exposure is 0',
          exposures: 'e = quantity x last price of the estimation, or market_value; short = sum of negative exposures (<= 0); C = portfolio_value, else gross',
          sampling:
            'R = T mu + sqrt(T) F z, z ~ N(0, I): F = Cholesky factor of Sigma (n x n), or, when the window has m <= n returns, F = loadings sqrt(w_t) (r_t - mean) (n x m, Sigma = F F^T exactly)',
          risk_factors:
            "the set of symbols the request names (book, trades, every batch book) and, over a multi-currency dataset, the FX columns their conversions into `currency` use, in the dataset's column order: the same book listed in any order gives the same figures; positions naming a symbol (or cash a currency) more than once add up (quantities and market values each); rows are listed in the request's order, each symbol once; a foreign position's log return is its series' plus its conversion's (R + F), cash's its conversion's",
        });
        if (method !== 'parametric_normal') {
          t.equal(
            meta.distribution.counts.reduce((a: number, b: number) => a + b, 0),
            meta.simulations,
            `${label}: histogram holds every scenario`,
          );
          t.equal(meta.distribution.bin_edges.length, 51);
        }
      }
    }
  }

  t.test('a drawn seed is returned, and reproduces the run', async (t) => {
    const first = await calculate(s.base, s.key, calcBody(ds, { method_options: {} }));
    const seed = first.body.meta.seed as number;
    t.ok(Number.isSafeInteger(seed));
    const again = await calculate(s.base, s.key, calcBody(ds, { method_options: { seed } }));
    t.same(again.body.meta.metrics, first.body.meta.metrics);
  });

  t.test('options: antithetic, zero drift, lookback, EWMA, bins', async (t) => {
    const r = await calculate(
      s.base,
      s.key,
      calcBody(ds, { method_options: { seed: 3, antithetic: true, drift: 'zero', lookback: 250, covariance: 'ewma', ewma_lambda: 0.97, histogram_bins: 20 } }),
    );
    t.equal(r.status, 200, r.text);
    const e = r.body.meta.estimation;
    t.match(e, { observations: 250, covariance: 'ewma', ewma_lambda: 0.97, drift: 'zero', lookback: 250 });
    t.same(Object.values(e.daily_mean), [0, 0, 0]);
    t.equal(r.body.meta.distribution.counts.length, 20);
  });
});

t.test('seeded results are identical with WORKERS=1 and WORKERS=2', async (t) => {
  const results = [];
  for (const workers of ['1', '2']) {
    const s = await startTestService({ WORKERS: workers });
    t.teardown(() => s.stop());
    const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id;
    // 300,000 simulations: several 64k-simulation batches when there are two workers.
    const r = await calculate(s.base, s.key, calcBody(ds, { simulations: 300_000, method_options: { seed: 77 } }));
    t.equal(r.status, 200);
    t.equal(r.body.meta.engine.batches, Number(workers), `${workers} worker(s): ${workers} batch(es)`);
    results.push(r.body.meta);
  }
  t.same(results[1].metrics, results[0].metrics, 'metrics bit-identical');
  t.same(results[1].contributions, results[0].contributions);
  t.same(results[1].distribution, results[0].distribution);
});
