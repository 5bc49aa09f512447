// Backtests over HTTP (API contract §9): on real data, the parametric-normal forecasts and their
// exceptions equal an independent rolling computation done here on the CSV; Monte Carlo backtests
// repeat bit for bit; every error row (the backtest bucket is in rate-limits.test.ts). The statistics themselves are checked
// against published values in test/unit/backtest-statistics.test.ts.
import t from 'tap';
import { call, refusals, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows } from '../helpers/price-series.js';

const BACKTEST = '/api/v1/risk/backtest';
type Body = Record<string, unknown>;

/** Prices of `symbols` on the sample's dates where all of them have one. */
const complete = (symbols: string[]) => completeRows(WIDE_SAMPLE, symbols);

/** Standard normal quantile by bisection on erfc-free Φ (an independent check, slow but plain). */
function normalQuantile(p: number): number {
  const cdf = (x: number) => {
    // Abramowitz–Stegun 26.2.17 is too coarse; integrate the density with Simpson's rule instead.
    const steps = 20_000;
    const lo = -12;
    const h = (x - lo) / steps;
    let sum = 0;
    for (let k = 0; k <= steps; k++) {
      const w = k === 0 || k === steps ? 1 : k % 2 === 1 ? 4 : 2;
      const y = lo + k * h;
      sum += w * Math.exp((-y * y) / 2);
    }
    return (sum * h) / 3 / Math.sqrt(2 * Math.PI);
  };
  let a = -10;
  let b = 10;
  for (let i = 0; i < 80; i++) {
    const m = (a + b) / 2;
    if (cdf(m) < p) a = m;
    else b = m;
  }
  return (a + b) / 2;
}

t.test('backtest', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  const id = up.body.dataset_id as string;
  const positions = [
    { symbol: 'AAPL', quantity: 4000 },
    { symbol: 'MSFT', quantity: -2000 },
    { symbol: 'JPM', market_value: 500_000 },
  ];
  const body = (over: Body = {}): Body => ({
    dataset_id: id,
    method: 'parametric_normal',
    currency: 'USD',
    positions,
    confidence_level: 0.99,
    time_horizon: 1,
    backtest: { window: 250, estimation_window: 500 },
    ...over,
  });
  const post = (json: Body) => call(s.base, 'POST', BACKTEST, { key: s.key, json });

  t.test('parametric normal: forecasts and exceptions equal an independent rolling computation', async (t) => {
    const r = await post(body());
    t.equal(r.status, 200, r.text.slice(0, 300));
    const b = r.body.meta.backtest;
    const h = complete(positions.map((p) => p.symbol));
    const last = h.prices[h.prices.length - 1]!;
    const e = [4000 * last[0]!, -2000 * last[1]!, 500_000];
    const z = normalQuantile(0.99);
    const rows = h.prices.length;
    let exceptions = 0;
    const dates: string[] = [];
    for (let t0 = rows - 250, k = 0; t0 < rows; t0++, k++) {
      const rets: number[][] = [];
      for (let d = t0 - 500; d < t0; d++) rets.push(h.prices[d]!.map((p, i) => Math.log(p / h.prices[d - 1]![i]!)));
      const mu = e.map((_, i) => rets.reduce((a, x) => a + x[i]!, 0) / rets.length);
      let variance = 0;
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          const c = rets.reduce((a, x) => a + (x[i]! - mu[i]!) * (x[j]! - mu[j]!), 0) / (rets.length - 1);
          variance += e[i]! * e[j]! * c;
        }
      }
      const forecast = z * Math.sqrt(variance) - e.reduce((a, x, i) => a + x * mu[i]!, 0);
      const pnl = e.reduce((a, x, i) => a + x * (h.prices[t0]![i]! / h.prices[t0 - 1]![i]! - 1), 0);
      const row = b.series[k];
      if (Math.abs(row.var / forecast - 1) > 1e-7 || Math.abs(row.pnl - pnl) > 1e-9 * Math.abs(pnl) + 1e-9) {
        t.fail(`${h.dates[t0]}: VaR ${row.var} vs ${forecast}, P&L ${row.pnl} vs ${pnl}`);
      }
      if (row.date !== h.dates[t0]) t.fail(`date ${row.date} vs ${h.dates[t0]}`);
      if (pnl < -forecast) {
        exceptions++;
        dates.push(h.dates[t0]!);
      }
    }
    t.equal(b.observations, 250);
    t.equal(b.exceptions, exceptions, `exceptions counted here: ${exceptions}`);
    t.same(b.exception_dates, dates);
    t.equal(b.expected_exceptions, 250 * (1 - 0.99));
    const { n00, n01, n10, n11 } = b.christoffersen_independence;
    t.equal(n00 + n01 + n10 + n11, 249, 'transitions N − 1');
    t.equal(n01 + n11, exceptions - (b.series[0].exception ? 1 : 0), 'moves into an exception');
    t.ok(['green', 'yellow', 'red'].includes(b.traffic_light.zone));
    t.ok(b.traffic_light.basel_multiplier >= 3 && b.traffic_light.frtb_multiplier >= 1.5, 'N = 250 at 99 %: multipliers given');
    t.ok(Number.isFinite(b.es_test.z2) && b.es_test.p_value >= 0 && b.es_test.p_value <= 1);
  });

  t.test('Monte Carlo and historical backtests repeat bit for bit', async (t) => {
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical']) {
      const json = body({ method, simulations: 2_000, method_options: { seed: 7 }, backtest: { window: 60, estimation_window: 250 } });
      const [a, b] = [await post(json), await post(json)];
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.same(a.body.meta.backtest, b.body.meta.backtest, method);
      t.equal(a.body.meta.backtest.observations, 60);
    }
    const other = await post(
      body({ method: 'monte_carlo_normal', simulations: 2_000, method_options: { seed: 8 }, backtest: { window: 60, estimation_window: 250 } }),
    );
    const base = await post(
      body({ method: 'monte_carlo_normal', simulations: 2_000, method_options: { seed: 7 }, backtest: { window: 60, estimation_window: 250 } }),
    );
    t.not(other.body.meta.backtest.series[0].var, base.body.meta.backtest.series[0].var, 'another seed, other draws');
    const shorter = await post(
      body({ method: 'monte_carlo_normal', simulations: 2_000, method_options: { seed: 7 }, backtest: { window: 50, estimation_window: 250 } }),
    );
    t.same(shorter.body.meta.backtest.series, base.body.meta.backtest.series.slice(10), 'a date’s forecast does not depend on the window');
    // Importance sampling forecasts the same model: the daily VaRs of both agree within a few per cent.
    const weighted = await post(
      body({
        method: 'monte_carlo_normal',
        simulations: 20_000,
        method_options: { seed: 7, variance_reduction: 'importance_sampling' },
        backtest: { window: 60, estimation_window: 250 },
      }),
    );
    const plain = await post(
      body({ method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 7 }, backtest: { window: 60, estimation_window: 250 } }),
    );
    t.equal(weighted.status, 200, weighted.text.slice(0, 300));
    t.equal(plain.status, 200, plain.text.slice(0, 300));
    // The same 60 dates in both (else the largest gap of an empty series would pass).
    const dates = (r: typeof plain) => r.body.meta.backtest.series.map((d: { date: string }) => d.date);
    t.equal(dates(weighted).length, 60, 'a forecast for every date of the window');
    t.same(dates(weighted), dates(plain), 'on the same dates as the plain backtest');
    const gaps = weighted.body.meta.backtest.series.map((d: { var: number }, i: number) => Math.abs(d.var / plain.body.meta.backtest.series[i].var - 1));
    t.ok(Math.max(...gaps) < 0.05, `importance-sampled daily VaRs within 5 % of plain ones (largest gap ${Math.max(...gaps)})`);
  });

  t.test('every error row', async (t) => {
    const refused = refusals(t, post);
    await refused(body({ time_horizon: 10 }), 422, 'VALIDATION_ERROR', ['body', 'time_horizon']);
    await refused(body({ backtest: { window: 49 } }), 422, 'VALIDATION_ERROR', ['body', 'backtest', 'window']);
    await refused(body({ backtest: { estimation_window: 5001 } }), 422, 'VALIDATION_ERROR', ['body', 'backtest', 'estimation_window']);
    await refused(body({ backtest: { size: 3 } }), 422, 'VALIDATION_ERROR', ['body', 'backtest', 'size']);
    await refused(body({ method_options: { lookback: 100 } }), 422, 'VALIDATION_ERROR', ['body', 'method_options', 'lookback']);
    await refused(body({ portfolio_mode: 'rebalanced' }), 422, 'VALIDATION_ERROR', ['body', 'portfolio_mode']);
    await refused(body({ method: 'monte_carlo_normal' }), 422, 'VALIDATION_ERROR', ['body', 'simulations']);
    await refused(body({ backtest: { estimation_window: 1300 } }), 422, 'INSUFFICIENT_DATA');
    await refused(body({ positions: [{ symbol: 'NOPE', quantity: 1 }] }), 422, 'UNKNOWN_SYMBOL', ['body', 'positions', 0, 'symbol']);
    await refused(body({ positions: undefined }), 422, 'VALIDATION_ERROR', ['body']);
    await refused(body({ dataset_id: 'ds_nope' }), 404, 'DATASET_NOT_FOUND');
    t.equal((await call(s.base, 'POST', BACKTEST, { json: body() })).status, 401, 'auth first');
  });
});
