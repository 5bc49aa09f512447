// Backtests of option books (API contract §9, §15) through the real server, against an independent
// rolling recomputation here (Black–Scholes with Φ from erfc): the realised P&L revalues each option
// at the next date, V(S_t, τ_t) − V(S_{t−1}, τ_{t−1}) with τ from each date to the expiry; the
// historical forecast re-prices the option on each of the window's returns at τ − 1/252 (filtered
// history: on the window's EWMA-filtered returns); the
// parametric forecast is the delta-normal VaR of the money deltas at t − 1; refusals at their fields.
import t from 'tap';
import { call, csvForm, refusals } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { sameSeries } from '../helpers/backtest-series.js';
import { iso, walk, wideCsv } from '../helpers/price-series.js';
import { blackScholes, blackScholesDelta, type OptionType } from '../helpers/black-scholes.js';
import { referenceEwmaFilter } from '../helpers/variance-filter-reference.js';

/** z at 0.99, docs/oracles.md. */
const Z99 = 2.326347874040841;

/** The oracle's price and ∂V/∂S (no dividend). */
const bs = (type: OptionType, s: number, k: number, r: number, vol: number, tau: number) => ({
  price: blackScholes(type, s, k, r, vol, tau),
  delta: blackScholesDelta(type, s, k, r, vol, tau),
});

const DAYS = 400;
const aapl = walk(DAYS, 31).map((p) => Number(p.toPrecision(12)));
const msft = walk(DAYS, 7).map((p) => Number(p.toPrecision(12)));
const EXPIRY_DAY = DAYS - 1 + 91;
const tauAt = (row: number) => (EXPIRY_DAY - row) / 365;
const K = Math.round(aapl[DAYS - 1]!);
const R = 0.03;
const VOL = 0.25;
const WINDOW = 50;
const EST = 250;
const BACKTEST = '/api/v1/risk/backtest';

const option = (type: 'call' | 'put', quantity: number, multiplier = 100, o: Record<string, unknown> = {}) => ({
  option: { underlying: 'AAPL', type, strike: K, expiry: iso(EXPIRY_DAY), volatility: VOL, rate: R, ...o },
  quantity,
  multiplier,
});
const price = (type: 'call' | 'put', row: number, s = aapl[row]!, tau = tauAt(row)) => bs(type, s, K, R, VOL, tau);
const close = (got: number, want: number, rel: number) => Math.abs(got - want) <= rel * Math.max(1, Math.abs(want));

t.test('backtests of option books', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ AAPL: aapl, MSFT: msft })) });
  t.equal(up.status, 200, up.text.slice(0, 300));
  const post = (json: Record<string, unknown>) => call(s.base, 'POST', BACKTEST, { key: s.key, json });
  const body = (over: Record<string, unknown>) => ({
    dataset_id: up.body.dataset_id,
    currency: 'USD',
    confidence_level: 0.99,
    time_horizon: 1,
    backtest: { window: WINDOW, estimation_window: EST, es: false },
    ...over,
  });
  const eMsft = 50 * msft[DAYS - 1]!;
  const realised = (type: 'call' | 'put', size: number, row: number) =>
    eMsft * (msft[row]! / msft[row - 1]! - 1) + size * (price(type, row).price - price(type, row - 1).price);

  t.test('historical, full revaluation: every forecast and realised P&L recomputed here', async (t) => {
    const positions = [{ symbol: 'MSFT', quantity: 50 }, option('put', -10)];
    const r = await post(body({ method: 'historical', positions }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const series = r.body.meta.backtest.series;
    t.equal(series.length, WINDOW);
    sameSeries(
      t,
      series,
      (i) => {
        const t0 = DAYS - WINDOW + i;
        const s0 = aapl[t0 - 1]!;
        const v0 = price('put', t0 - 1).price;
        const pnls: number[] = [];
        for (let d = t0 - EST; d < t0; d++) {
          const ra = Math.log(aapl[d]! / aapl[d - 1]!);
          const rm = Math.log(msft[d]! / msft[d - 1]!);
          pnls.push(eMsft * Math.expm1(rm) - 1000 * (bs('put', s0 * Math.exp(ra), K, R, VOL, tauAt(t0 - 1) - 1 / 252).price - v0));
        }
        pnls.sort((a, b) => a - b);
        const forecast = -pnls[Math.ceil(0.01 * EST) - 1]!;
        const pnl = realised('put', -1000, t0);
        return { date: iso(t0), var: forecast, pnl: pnl };
      },
      `${WINDOW} forecasts and P&Ls as recomputed`,
    );
    t.equal(r.body.meta.backtest.exceptions, series.filter((x: { pnl: number; var: number }) => x.pnl < -x.var).length);
  });

  t.test('historical_filtered, EWMA, full revaluation: every forecast recomputed from the filtered window', async (t) => {
    const positions = [{ symbol: 'MSFT', quantity: 50 }, option('put', -10)];
    const lambda = 0.97;
    const r = await post(body({ method: 'historical_filtered', method_options: { filter: { model: 'ewma', lambda } }, positions }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const series = r.body.meta.backtest.series;
    t.equal(series.length, WINDOW);
    const filtered = (prices: number[], t0: number) => {
      const returns = Float64Array.from({ length: EST }, (_, j) => Math.log(prices[t0 - EST + j]! / prices[t0 - EST + j - 1]!));
      return referenceEwmaFilter(returns, 1, lambda).returns;
    };
    let apart = 0;
    sameSeries(
      t,
      series,
      (i) => {
        const t0 = DAYS - WINDOW + i;
        const [fa, fm] = [filtered(aapl, t0), filtered(msft, t0)];
        const s0 = aapl[t0 - 1]!;
        const v0 = price('put', t0 - 1).price;
        const pnls = Array.from(
          { length: EST },
          (_, j) => eMsft * Math.expm1(fm[j]!) - 1000 * (bs('put', s0 * Math.exp(fa[j]!), K, R, VOL, tauAt(t0 - 1) - 1 / 252).price - v0),
        ).sort((a, b) => a - b);
        const forecast = -pnls[Math.ceil(0.01 * EST) - 1]!;
        // The plain window's forecast, to show the filter took effect.
        const plain = Array.from(
          { length: EST },
          (_, j) =>
            eMsft * Math.expm1(Math.log(msft[t0 - EST + j]! / msft[t0 - EST + j - 1]!)) -
            1000 * (bs('put', (aapl[t0 - EST + j]! / aapl[t0 - EST + j - 1]!) * s0, K, R, VOL, tauAt(t0 - 1) - 1 / 252).price - v0),
        ).sort((a, b) => a - b);
        if (!close(plain[Math.ceil(0.01 * EST) - 1]!, -forecast, 1e-6)) apart++;
        return { date: iso(t0), var: forecast, pnl: realised('put', -1000, t0) };
      },
      `${WINDOW} filtered forecasts and P&Ls as recomputed`,
    );
    t.ok(apart > WINDOW / 2, `the filtered forecasts differ from plain history's (${apart} of ${WINDOW})`);
  });

  t.test('parametric, delta: the delta-normal VaR of the money deltas at t − 1', async (t) => {
    const positions = [{ symbol: 'MSFT', quantity: 50 }, option('call', 10)];
    const r = await post(body({ method: 'parametric_normal', method_options: { valuation: 'delta' }, positions }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    sameSeries(
      t,
      r.body.meta.backtest.series,
      (i) => {
        const t0 = DAYS - WINDOW + i;
        const e = [1000 * price('call', t0 - 1).delta * aapl[t0 - 1]!, eMsft];
        const rets: number[][] = [];
        for (let d = t0 - EST; d < t0; d++) rets.push([Math.log(aapl[d]! / aapl[d - 1]!), Math.log(msft[d]! / msft[d - 1]!)]);
        const mu = [0, 1].map((j) => rets.reduce((a, x) => a + x[j]!, 0) / EST);
        let variance = 0;
        for (let a = 0; a < 2; a++) {
          for (let b = 0; b < 2; b++) variance += e[a]! * e[b]! * (rets.reduce((acc, x) => acc + (x[a]! - mu[a]!) * (x[b]! - mu[b]!), 0) / (EST - 1));
        }
        const forecast = Z99 * Math.sqrt(variance) - (e[0]! * mu[0]! + e[1]! * mu[1]!);
        const pnl = realised('call', 1000, t0);
        return { date: iso(t0), var: forecast, pnl: pnl };
      },
      'every forecast and P&L as recomputed',
    );
  });

  t.test('Monte Carlo: seeded, repeats bit for bit, a long call’s VaR and ES positive', async (t) => {
    const json = body({ method: 'monte_carlo_normal', simulations: 2000, method_options: { seed: 3 }, positions: [option('call', 10)] });
    const [a, b] = [await post(json), await post(json)];
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.same(a.body.meta.backtest, b.body.meta.backtest);
    t.ok(
      a.body.meta.backtest.series.every((x: { var: number; es: number }) => x.var > 0 && x.es >= x.var),
      'a long call: VaR > 0, ES ≥ VaR',
    );
  });

  t.test('refusals at their fields', async (t) => {
    const refused = refusals(t, post);
    const positions = [option('call', 1)];
    await refused(body({ method: 'parametric_normal', positions }), 422, 'VALIDATION_ERROR', ['body', 'method_options', 'valuation']);
    await refused(body({ method: 'cornish_fisher', positions }), 422, 'VALIDATION_ERROR', ['body', 'method']);
    await refused(body({ method: 'historical', positions: [option('call', 1, 1, { underlying: 'NOPE' })] }), 422, 'UNKNOWN_SYMBOL', [
      'body',
      'positions',
      0,
      'option',
      'underlying',
    ]);
    await refused(body({ method: 'historical', positions: [option('call', 1, 1, { expiry: iso(DAYS - 5) })] }), 422, 'VALIDATION_ERROR', [
      'body',
      'positions',
      0,
      'option',
      'expiry',
    ]);
    await refused(body({ method: 'historical', positions: [option('call', 0)] }), 422, 'VALIDATION_ERROR', ['body', 'positions']);
    await refused(
      body({ method: 'monte_carlo_normal', simulations: 1000, method_options: { variance_reduction: 'importance_sampling' }, positions }),
      422,
      'VALIDATION_ERROR',
      ['body', 'method_options', 'variance_reduction'],
    );
    await refused(body({ method: 'historical', positions: [option('call', 1), { symbol: 'NOPE', quantity: 1 }] }), 422, 'UNKNOWN_SYMBOL', [
      'body',
      'positions',
      1,
      'symbol',
    ]);
    await refused(body({ method: 'historical', positions: [option('call', 1), { symbol: 'MSFT', quantity: 1, market_value: 5 }] }), 422, 'VALIDATION_ERROR', [
      'body',
      'positions',
      1,
    ]);
  });
});
