// Filtered historical simulation and Cornish–Fisher over HTTP (api.md §16): PerformanceAnalytics'
// published modified VaR through a prices upload; on the real sample, both methods' figures
// recomputed here from the CSV (windows, EWMA filter, moments, order statistics) to 1e-9; batch,
// what-if and backtests with both; every refusal. The formulas' own checks are in
// test/unit/cornish-fisher.test.ts.
import t, { type Test } from 'tap';
import { calculate, call, refusals, upload, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows, walk, wideCsv } from '../helpers/price-series.js';
import { EDHEC_CONVERTIBLE_ARBITRAGE_100, EDHEC_MODIFIED_VAR_95 } from '../helpers/edhec.js';

type Body = Record<string, unknown>;
const SYMBOLS = ['AAPL', 'MSFT', 'JPM'];
const QUANTITIES = [4000, -2000, 3000];

const near = (t: Test, got: number, want: number, msg: string, tol = 1e-9) =>
  t.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${msg}: ${got} vs ${want}`);

/** Log returns [date][asset] between consecutive complete rows, and the last prices. */
function sampleReturns(): { returns: number[][]; last: number[] } {
  const { prices } = completeRows(WIDE_SAMPLE, SYMBOLS);
  const returns = prices.slice(1).map((row, d) => row.map((p, i) => Math.log(p / prices[d]![i]!)));
  return { returns, last: prices[prices.length - 1]! };
}

/** Order-statistic VaR and ES (api.md §5): k = ⌈(1 − c)N⌉. */
function orderStatistics(pnl: number[], c: number): { var: number; es: number } {
  const x = [...pnl].sort((a, b) => a - b);
  const k = Math.ceil((1 - c) * x.length - 1e-9);
  return { var: -x[k - 1]!, es: -x.slice(0, k).reduce((a, b) => a + b, 0) / k };
}

/** Φ⁻¹ by bisection on Simpson's Φ (independent of the service's rational approximation). */
function normalQuantile(p: number): number {
  const cdf = (x: number) => {
    const [steps, lo] = [20_000, -12];
    const h = (x - lo) / steps;
    let sum = 0;
    for (let k = 0; k <= steps; k++) sum += (k === 0 || k === steps ? 1 : k % 2 === 1 ? 4 : 2) * Math.exp(-((lo + k * h) ** 2) / 2);
    return (sum * h) / 3 / Math.sqrt(2 * Math.PI);
  };
  let [a, b] = [-10, 10];
  for (let i = 0; i < 80; i++) [a, b] = cdf((a + b) / 2) < p ? [(a + b) / 2, b] : [a, (a + b) / 2];
  return (a + b) / 2;
}

t.test('filtered history and Cornish–Fisher', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_BATCH_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const id = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const positions = SYMBOLS.map((symbol, i) => ({ symbol, quantity: QUANTITIES[i] }));
  const body = (over: Body = {}): Body => ({
    dataset_id: id,
    method: 'cornish_fisher',
    currency: 'USD',
    positions,
    confidence_level: 0.99,
    time_horizon: 1,
    ...over,
  });
  const { returns, last } = sampleReturns();
  const exposures = QUANTITIES.map((q, i) => q * last[i]!);

  t.test('PerformanceAnalytics: modified VaR of edhec at 95 % (published −0.014674)', async (t) => {
    // Prices P_t = Π(1 + R_t): a one-asset book's one-period P&L per unit of value is R_t.
    const prices = [100];
    for (const r of EDHEC_CONVERTIBLE_ARBITRAGE_100) prices.push(prices[prices.length - 1]! * (1 + r));
    const up = await upload(
      s.base,
      s.key,
      wideCsv({ CA: prices }, (p) => p.toPrecision(17)),
    );
    const r = await calculate(s.base, s.key, {
      dataset_id: up.body.dataset_id,
      method: 'cornish_fisher',
      currency: 'USD',
      portfolio: [{ symbol: 'CA', weight: 1 }],
      portfolio_value: 1,
      confidence_level: 0.95,
      time_horizon: 1,
    });
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.ok(Math.abs(-r.body.meta.metrics.value_at_risk_pct - EDHEC_MODIFIED_VAR_95) <= 5e-7, `VaR% ${r.body.meta.metrics.value_at_risk_pct}`);
    t.equal(r.body.meta.cornish_fisher.valid, true);
    t.ok(r.body.meta.cornish_fisher.skewness < 0);
    t.equal(r.body.meta.warnings, undefined);
  });

  t.test('Cornish–Fisher on the sample, T = 1 and 10, both modes: recomputed from the CSV', async (t) => {
    for (const [horizon, mode] of [
      [1, 'buy_and_hold'],
      [10, 'buy_and_hold'],
      [10, 'rebalanced'],
    ] as const) {
      const r = await calculate(s.base, s.key, body({ time_horizon: horizon, portfolio_mode: mode }));
      t.equal(r.status, 200, r.text.slice(0, 300));
      const gross = exposures.reduce((a, e) => a + Math.abs(e), 0);
      const pnl: number[] = [];
      for (let w = 0; w + horizon <= returns.length; w++) {
        if (mode === 'buy_and_hold') {
          pnl.push(exposures.reduce((a, e, i) => a + e * (Math.exp(returns.slice(w, w + horizon).reduce((x, row) => x + row[i]!, 0)) - 1), 0));
        } else {
          let growth = 1;
          for (const row of returns.slice(w, w + horizon)) growth *= 1 + exposures.reduce((a, e, i) => a + (e / gross) * (Math.exp(row[i]!) - 1), 0);
          pnl.push(gross * (growth - 1));
        }
      }
      const n = pnl.length;
      const mu = pnl.reduce((a, b) => a + b, 0) / n;
      const cm = (p: number) => pnl.reduce((a, v) => a + (v - mu) ** p, 0) / n;
      const [sk, ku, sd] = [cm(3) / cm(2) ** 1.5, cm(4) / cm(2) ** 2 - 3, Math.sqrt(cm(2))];
      const q = normalQuantile(0.01);
      const zcf = q + ((q * q - 1) * sk) / 6 + ((q ** 3 - 3 * q) * ku) / 24 - ((2 * q ** 3 - 5 * q) * sk * sk) / 36;
      const phi = Math.exp((-q * q) / 2) / Math.sqrt(2 * Math.PI);
      const es = -mu + ((sd * phi) / 0.01) * (1 + (sk * q) / 6 + (ku * (q * q - 1)) / 24 + (sk * sk * (1 - 2 * q * q)) / 36);
      const m = r.body.meta;
      const at = `T ${horizon} ${mode}`;
      t.equal(m.simulations, n, `${at}: one scenario per window`);
      near(t, m.cornish_fisher.skewness, sk, `${at} skewness`);
      near(t, m.cornish_fisher.excess_kurtosis, ku, `${at} excess kurtosis`);
      near(t, m.metrics.value_at_risk, -(mu + sd * zcf), `${at} VaR`, 1e-8);
      near(t, m.metrics.expected_shortfall, es, `${at} ES`, 1e-8);
      const sum = (k: string) => m.contributions.reduce((a: number, c: Record<string, number>) => a + c[k]!, 0);
      near(t, sum('component_es'), m.metrics.expected_shortfall, `${at} components sum to ES`);
      near(t, sum('component_var'), m.metrics.value_at_risk, `${at} components sum to VaR`);
      t.equal(m.metrics.value_at_risk_standard_error, 0);
    }
  });

  t.test('historical_filtered, EWMA, T = 1: recomputed from the CSV', async (t) => {
    for (const lambda of [0.94, 0.97]) {
      const r = await calculate(s.base, s.key, body({ method: 'historical_filtered', method_options: { filter: { model: 'ewma', lambda } } }));
      t.equal(r.status, 200, r.text.slice(0, 300));
      const m = returns.length;
      const filtered = returns.map((row) => [...row]);
      const current: number[] = [];
      for (let i = 0; i < SYMBOLS.length; i++) {
        const seed = Math.min(30, m);
        const v = [returns.slice(0, seed).reduce((a, row) => a + row[i]! ** 2, 0) / seed];
        for (let d = 0; d < m; d++) v.push(lambda * v[d]! + (1 - lambda) * returns[d]![i]! ** 2);
        current.push(Math.sqrt(v[m]!));
        for (let d = 0; d < m; d++) filtered[d]![i] = (Math.sqrt(v[m]!) * returns[d]![i]!) / Math.sqrt(v[d]!);
      }
      const pnl = filtered.map((row) => exposures.reduce((a, e, i) => a + e * (Math.exp(row[i]!) - 1), 0));
      const want = orderStatistics(pnl, 0.99);
      const meta = r.body.meta;
      near(t, meta.metrics.value_at_risk, want.var, `λ ${lambda} VaR`);
      near(t, meta.metrics.expected_shortfall, want.es, `λ ${lambda} ES`);
      SYMBOLS.forEach((sym, i) => {
        near(t, meta.filter[sym].current_volatility, current[i]!, `${sym} σ_{m+1}`, 1e-12);
        t.same(meta.filter[sym].parameters, { model: 'ewma', lambda });
      });
      t.equal(meta.cornish_fisher, undefined);
    }
    const plain = await calculate(s.base, s.key, body({ method: 'historical_filtered' }));
    t.same(plain.body.meta.filter.AAPL.parameters, { model: 'ewma', lambda: 0.94 }, 'the default filter');
  });

  t.test('batch and what-if', async (t) => {
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
    const single = await calculate(s.base, s.key, body());
    t.equal(batch.body.meta.books[0].metrics.value_at_risk, single.body.meta.metrics.value_at_risk, 'a batch book equals its single calculate');
    t.same(batch.body.meta.books[0].cornish_fisher, single.body.meta.cornish_fisher);
    for (const method of ['cornish_fisher', 'historical_filtered']) {
      const r = await calculate(s.base, s.key, body({ method, what_if: { trades: [{ symbol: 'MSFT', quantity: 2000 }] } }));
      t.equal(r.status, 200, r.text.slice(0, 300));
      const after = await calculate(s.base, s.key, body({ method, positions: [positions[0], positions[2]] }));
      const w = r.body.meta.what_if;
      near(t, w.value_at_risk, after.body.meta.metrics.value_at_risk, `${method}: the book after the trade`);
      near(t, w.incremental_var, w.value_at_risk - r.body.meta.metrics.value_at_risk, `${method}: incremental VaR`);
    }
  });

  t.test('backtests with both methods', async (t) => {
    for (const method of ['cornish_fisher', 'historical_filtered']) {
      const r = await call(s.base, 'POST', '/api/v1/risk/backtest', { key: s.key, json: body({ method, backtest: { window: 250, estimation_window: 500 } }) });
      t.equal(r.status, 200, r.text.slice(0, 300));
      const b = r.body.meta.backtest;
      t.equal(b.observations, 250);
      t.ok(
        b.series.every((f: { var: number; es: number }) => Number.isFinite(f.var) && Number.isFinite(f.es) && f.var > 0),
        `${method}: finite forecasts`,
      );
    }
  });

  t.test('a volatility regime change: filtered exceptions closer to expected than plain history', async (t) => {
    // AAPL's real prices from the shared sample, its daily log returns tripled over the
    // last 250 dates (the backtest's own window):
    // the storm the filter should see and plain history learns only as it enters the window.
    const { prices } = completeRows(WIDE_SAMPLE, ['AAPL']);
    const stormy = [prices[0]![0]!];
    for (let d = 1; d < prices.length; d++)
      stormy.push(stormy[d - 1]! * Math.exp((d >= prices.length - 250 ? 3 : 1) * Math.log(prices[d]![0]! / prices[d - 1]![0]!)));
    const up = await upload(
      s.base,
      s.key,
      wideCsv({ AAPL: stormy }, (p) => p.toPrecision(17)),
    );
    const run = async (method: string) => {
      const r = await call(s.base, 'POST', '/api/v1/risk/backtest', {
        key: s.key,
        json: body({
          dataset_id: up.body.dataset_id,
          method,
          positions: [{ symbol: 'AAPL', market_value: 1_000_000 }],
          backtest: { window: 250, estimation_window: 500 },
        }),
      });
      t.equal(r.status, 200, r.text.slice(0, 300));
      return r.body.meta.backtest;
    };
    const [plain, filtered, cf] = [await run('historical'), await run('historical_filtered'), await run('cornish_fisher')];
    t.comment(
      `exceptions of 250 at 99 % (2.5 expected): historical ${plain.exceptions} (${plain.traffic_light.zone}), ` +
        `historical_filtered ${filtered.exceptions} (${filtered.traffic_light.zone}), cornish_fisher ${cf.exceptions} (${cf.traffic_light.zone})`,
    );
    t.ok(Math.abs(filtered.exceptions - 2.5) < Math.abs(plain.exceptions - 2.5), `filtered ${filtered.exceptions} vs plain ${plain.exceptions}`);
    t.equal(plain.traffic_light.zone, 'red');
    t.not(filtered.traffic_light.zone, 'red');
  });

  t.test('a tail where the expansion turns back: valid false and a warning, figures still finite', async (t) => {
    // 99 quiet days and one crash: S ≈ −6.5, K ≈ 55, so S² > 3K/4 and z_cf bends back in the far tail.
    const prices = [100];
    for (let d = 0; d < 100; d++) prices.push(prices[prices.length - 1]! * Math.exp(d === 50 ? -0.2 : d % 2 === 0 ? 0.01 : -0.01));
    const up = await upload(
      s.base,
      s.key,
      wideCsv({ JUMP: prices }, (p) => p.toPrecision(17)),
    );
    const r = await calculate(s.base, s.key, body({ dataset_id: up.body.dataset_id, positions: [{ symbol: 'JUMP', market_value: 1000 }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const cf = r.body.meta.cornish_fisher;
    t.ok(cf.skewness ** 2 > 0.75 * cf.excess_kurtosis, `S ${cf.skewness}, K ${cf.excess_kurtosis}`);
    t.equal(cf.valid, false);
    t.match(r.body.meta.warnings[0], /not monotone/);
    t.ok(Number.isFinite(r.body.meta.metrics.value_at_risk) && Number.isFinite(r.body.meta.metrics.expected_shortfall));
  });

  t.test('refusals', async (t) => {
    const refused = refusals(t, (json) => calculate(s.base, s.key, json));
    await refused(body({ method: 'historical', method_options: { filter: { model: 'ewma' } } }), 422, 'VALIDATION_ERROR', ['body', 'method_options', 'filter']);
    // T > 1 draws bootstrap paths (filtered-bootstrap.test.ts): their number is required.
    await refused(body({ method: 'historical_filtered', time_horizon: 10 }), 422, 'VALIDATION_ERROR', ['body', 'simulations']);
    await refused(body({ method: 'historical_filtered', method_options: { filter: { model: 'ewma', lambda: 1 } } }), 422, 'VALIDATION_ERROR');
    await refused(body({ method: 'historical_filtered', method_options: { filter: { model: 'ewma', decay: 0.9 } } }), 422, 'VALIDATION_ERROR');
    await refused(body({ method: 'cornish_fisher', method_options: { covariance: 'ewma' } }), 422, 'VALIDATION_ERROR', [
      'body',
      'method_options',
      'covariance',
    ]);
    const short = (await upload(s.base, s.key, wideCsv({ X: walk(40, 1) }))).body.dataset_id as string;
    const book = { dataset_id: short, positions: [{ symbol: 'X', quantity: 1 }] };
    await refused(body({ ...book, method: 'cornish_fisher', time_horizon: 50 }), 422, 'INSUFFICIENT_DATA');
  });
});
