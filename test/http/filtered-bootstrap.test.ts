// Filtered history over T > 1 days (api.md §16): seeded bootstrap paths of whole standardised rows,
// the variance carried along each path. Every figure recomputed here from the CSV with an
// independent twin of the generator and the recursion (test/helpers/bootstrap-oracle.ts) to 1e-9,
// for both filters; seeds; batch and what-if on the same paths; every refusal. The engine's side
// (four builds, the path variance's expectation) is test/engine/bootstrap-builds.test.ts.
import t, { type Test } from 'tap';
import { calculate, call, refusals, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows } from '../helpers/price-series.js';
import { drawnRows, pathReturns, type Recursion } from '../helpers/bootstrap-oracle.js';

type Body = Record<string, unknown>;
const SYMBOLS = ['AAPL', 'MSFT', 'JPM'];
const QUANTITIES = [4000, -2000, 3000];
const SEED = 20_261_126;

const near = (t: Test, got: number, want: number, msg: string, tol = 1e-9) =>
  t.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${msg}: ${got} vs ${want}`);

/** Order-statistic VaR and ES (api.md §5): k = ⌈(1 − c)N⌉. */
function orderStatistics(pnl: number[], c: number): { var: number; es: number } {
  const x = [...pnl].sort((a, b) => a - b);
  const k = Math.ceil((1 - c) * x.length - 1e-9);
  return { var: -x[k - 1]!, es: -x.slice(0, k).reduce((a, b) => a + b, 0) / k };
}

/** z_t = r_t / σ_t and σ_{m+1} of each asset under its recursion, σ²_1 = mean r² of the first 30. */
function standardised(returns: number[][], recursions: Recursion[]): { z: number[][]; current: number[] } {
  const m = returns.length;
  const z = returns.map((row) => row.map(() => 0));
  const current = recursions.map((p, i) => {
    let v = returns.slice(0, Math.min(30, m)).reduce((a, row) => a + row[i]! ** 2, 0) / Math.min(30, m);
    for (let d = 0; d < m; d++) {
      z[d]![i] = v > 0 ? returns[d]![i]! / Math.sqrt(v) : 0;
      v = p.omega + p.alpha * returns[d]![i]! ** 2 + p.beta * v;
    }
    return Math.sqrt(v);
  });
  return { z, current };
}

t.test('filtered history over T > 1 days: bootstrap paths', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BATCH_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const id = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const positions = SYMBOLS.map((symbol, i) => ({ symbol, quantity: QUANTITIES[i] }));
  const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
  const returns = prices.slice(1).map((row, d) => row.map((p, i) => Math.log(p / prices[d]![i]!)));
  const last = prices[prices.length - 1]!;
  const exposures = QUANTITIES.map((q, i) => q * last[i]!);
  const body = (over: Body = {}): Body => ({
    dataset_id: id,
    method: 'historical_filtered',
    currency: 'USD',
    positions,
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 2000,
    method_options: { seed: SEED },
    ...over,
  });

  for (const [name, filter] of [
    ['EWMA λ 0.94', { model: 'ewma', lambda: 0.94 }],
    ['GARCH(1,1)', { model: 'garch11' }],
  ] as const) {
    t.test(`${name}, T = 10 and 3: the figures recomputed from the CSV and the drawn rows`, async (t) => {
      for (const horizon of [10, 3]) {
        const r = await calculate(s.base, s.key, body({ time_horizon: horizon, method_options: { seed: SEED, filter } }));
        t.equal(r.status, 200, r.text.slice(0, 300));
        const meta = r.body.meta;
        const recursions: Recursion[] = SYMBOLS.map((sym) => {
          const p = meta.filter[sym].parameters;
          return p.model === 'ewma' ? { omega: 0, alpha: 1 - p.lambda, beta: p.lambda } : { omega: p.omega, alpha: p.alpha, beta: p.beta };
        });
        if (filter.model === 'garch11')
          t.ok(
            SYMBOLS.every((sym) => meta.filter[sym].parameters.model === 'garch11'),
            'every asset fitted',
          );
        const { z, current } = standardised(returns, recursions);
        SYMBOLS.forEach((sym, i) => near(t, meta.filter[sym].current_volatility, current[i]!, `${sym} σ_{m+1}`, 1e-12));
        const pnl = Array.from({ length: 2000 }, (_, p) => {
          const sums = pathReturns(drawnRows(SEED, p, horizon, returns.length), z, current, recursions);
          return exposures.reduce((a, e, i) => a + e * (Math.exp(sums[i]!) - 1), 0);
        });
        const want = orderStatistics(pnl, 0.99);
        const at = `T ${horizon}`;
        t.equal(meta.simulations, 2000, `${at}: one scenario per path`);
        t.equal(meta.seed, SEED);
        t.equal(meta.time_horizon, horizon);
        near(t, meta.metrics.value_at_risk, want.var, `${at} VaR`);
        near(t, meta.metrics.expected_shortfall, want.es, `${at} ES`);
        near(t, meta.metrics.expected_pnl, pnl.reduce((a, b) => a + b, 0) / pnl.length, `${at} mean P&L`);
        const sum = (k: string) => meta.contributions.reduce((a: number, c: Record<string, number>) => a + c[k]!, 0);
        near(t, sum('component_es'), meta.metrics.expected_shortfall, `${at} components sum to ES`);
        // Sampling error as for Monte Carlo: from the batches of paths.
        const se = meta.metrics.value_at_risk_standard_error;
        t.ok(Number.isFinite(se) && se > 0 && se < meta.metrics.value_at_risk, `${at} VaR standard error ${se}`);
      }
    });
  }

  t.test('the same seed draws the same paths, another seed others; drift zero centres the paths', async (t) => {
    const a = await calculate(s.base, s.key, body());
    const b = await calculate(s.base, s.key, body());
    const c = await calculate(s.base, s.key, body({ method_options: { seed: SEED + 1 } }));
    t.same(a.body.meta.metrics, b.body.meta.metrics, 'same seed, same figures');
    t.not(JSON.stringify(a.body.meta.metrics), JSON.stringify(c.body.meta.metrics), 'another seed, other figures');
    const drawn = await calculate(s.base, s.key, body({ method_options: undefined }));
    t.equal(drawn.status, 200);
    t.ok(Number.isSafeInteger(drawn.body.meta.seed), 'a seed is drawn and reported when none is given');
    // Drift zero: each asset's T-day log returns less their mean over the paths, as T = 1 centres the days.
    const zero = await calculate(s.base, s.key, body({ method_options: { seed: SEED, drift: 'zero' } }));
    const lambda = 0.94;
    const recursions = SYMBOLS.map(() => ({ omega: 0, alpha: 1 - lambda, beta: lambda }));
    const { z, current } = standardised(returns, recursions);
    const sums = Array.from({ length: 2000 }, (_, p) => pathReturns(drawnRows(SEED, p, 10, returns.length), z, current, recursions));
    const mean = SYMBOLS.map((_, i) => sums.reduce((a, row) => a + row[i]!, 0) / sums.length);
    const pnl = sums.map((row) => exposures.reduce((a, e, i) => a + e * (Math.exp(row[i]! - mean[i]!) - 1), 0));
    near(t, zero.body.meta.metrics.value_at_risk, orderStatistics(pnl, 0.99).var, 'drift zero: VaR of the centred paths');
    const one = await calculate(s.base, s.key, body({ time_horizon: 1, simulations: undefined }));
    t.equal(one.body.meta.seed, null, 'T = 1 replays every date: no seed');
  });

  t.test('batch and what-if price their books on the same paths', async (t) => {
    const single = await calculate(s.base, s.key, body());
    const batch = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', {
      key: s.key,
      json: {
        ...body(),
        positions: undefined,
        books: [
          { id: 'a', positions },
          { id: 'b', positions: [{ symbol: 'AAPL', quantity: 100 }] },
        ],
      },
    });
    t.equal(batch.status, 200, batch.text.slice(0, 300));
    t.equal(batch.body.meta.books[0].metrics.value_at_risk, single.body.meta.metrics.value_at_risk, 'a batch book equals its single calculate');
    const w = await calculate(s.base, s.key, body({ what_if: { trades: [{ symbol: 'MSFT', quantity: 2000 }] } }));
    t.equal(w.status, 200, w.text.slice(0, 300));
    t.equal(w.body.meta.metrics.value_at_risk, single.body.meta.metrics.value_at_risk, 'the book before the trades, on the same paths');
    const after = await calculate(s.base, s.key, body({ positions: [positions[0], positions[2]] }));
    near(t, w.body.meta.what_if.value_at_risk, after.body.meta.metrics.value_at_risk, 'the book after the trade');
  });

  t.test('refusals', async (t) => {
    const refused = refusals(t, (json) => calculate(s.base, s.key, json));
    await refused(body({ simulations: undefined }), 422, 'VALIDATION_ERROR', ['body', 'simulations']);
    await refused(body({ portfolio_mode: 'rebalanced' }), 422, 'VALIDATION_ERROR', ['body', 'portfolio_mode']);
    // 3 assets × 1,000 days × 10,000 paths = 3e7 > 2e7 steps.
    const beyond = await calculate(s.base, s.key, body({ time_horizon: 1000, simulations: 10_000 }));
    t.equal(beyond.status, 422, beyond.text.slice(0, 300));
    t.same(beyond.body.detail.errors[0].loc, ['body', 'simulations']);
    t.equal(beyond.body.detail.errors[0].type, 'limit_exceeded');
    t.match(beyond.body.detail.errors[0].msg, /at most 2e7: 10000 × 1000 × 3/);
    // λ 0.01: σ_{t+1} ≈ |r_t|, z up to 94 on the sample, a path's variance multiplied by ~z² a day.
    const explosive = await calculate(s.base, s.key, body({ time_horizon: 20, method_options: { seed: SEED, filter: { model: 'ewma', lambda: 0.01 } } }));
    t.equal(explosive.status, 422, explosive.text.slice(0, 300));
    t.equal(explosive.body.detail.errors[0].type, 'overflow', 'a path leaving double precision: the documented overflow');
    const within = await calculate(s.base, s.key, body({ time_horizon: 100, simulations: 60_000 }));
    t.equal(within.status, 200, `1.8e7 steps answered: ${within.text.slice(0, 200)}`);
    t.ok(Number.isFinite(within.body.meta.metrics.value_at_risk));
  });
});
