// Backtests of option books over a multi-currency dataset (API contract §9, §14, §15) through the
// real server, against an independent rolling recomputation here (Black–Scholes with Φ from erfc):
// an option on a foreign underlying is revalued on its local price and converted at each date's
// rate, forecast (historical: X·e^{F}·V(S·e^{R}, τ − 1/252) − X·V(S, τ) on each window day) and
// realised (X_t·V(S_t, τ_t) − X_{t−1}·V(S_{t−1}, τ_{t−1})); at its delta it is a foreign stock of
// Δ·S·X; an option in the reporting currency answers as over the single-currency dataset, to the bit.
import t from 'tap';
import { call } from '../helpers/http.js';
import { euroMarket, uploadEuroMarket } from '../helpers/euro-underlying.js';
import { startTestService } from '../helpers/service.js';
import { sameSeries } from '../helpers/backtest-series.js';
import { iso } from '../helpers/price-series.js';
import { blackScholes, blackScholesDelta } from '../helpers/black-scholes.js';

const Z99 = 2.326347874040841;
const DAYS = 360;
const { aapl, sap, eurusd } = euroMarket(DAYS);
const EXPIRY_DAY = DAYS - 1 + 120;
const tauAt = (row: number) => (EXPIRY_DAY - row) / 365;
const K = Math.round(sap[DAYS - 1]!);
const [R, VOL, WINDOW, EST] = [0.02, 0.3, 50, 200];
const BACKTEST = '/api/v1/risk/backtest';
const sapOption = (type: 'call' | 'put', quantity: number) => ({
  option: { underlying: 'SAP', type, strike: K, expiry: iso(EXPIRY_DAY), volatility: VOL, rate: R },
  quantity,
  multiplier: 100,
});
const value = (type: 'call' | 'put', s: number, tau: number) => blackScholes(type, s, K, R, VOL, tau);
const logReturn = (xs: number[], d: number) => Math.log(xs[d]! / xs[d - 1]!);

t.test('backtests of option books over a multi-currency dataset', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const { multi, plain } = await uploadEuroMarket(s.base, s.key, { aapl, sap, eurusd });
  const post = (json: Record<string, unknown>) => call(s.base, 'POST', BACKTEST, { key: s.key, json });
  const body = (over: Record<string, unknown>) => ({
    dataset_id: multi,
    currency: 'USD',
    confidence_level: 0.99,
    time_horizon: 1,
    backtest: { window: WINDOW, estimation_window: EST, es: false },
    ...over,
  });
  const eAapl = 50 * aapl[DAYS - 1]!;
  const size = -1000;
  const realised = (type: 'call' | 'put', row: number) =>
    eAapl * (aapl[row]! / aapl[row - 1]! - 1) +
    size * (eurusd[row]! * value(type, sap[row]!, tauAt(row)) - eurusd[row - 1]! * value(type, sap[row - 1]!, tauAt(row - 1)));

  t.test('historical, full revaluation: a EUR put and EUR cash in a USD book, every forecast and P&L recomputed here', async (t) => {
    const r = await post(body({ method: 'historical', positions: [{ symbol: 'AAPL', quantity: 50 }, sapOption('put', -10), { cash: 'EUR', amount: 20_000 }] }));
    // Cash is an exposure of today's value in USD, moving with EURUSD.
    const eCash = 20_000 * eurusd[DAYS - 1]!;
    t.equal(r.status, 200, r.text.slice(0, 300));
    const series = r.body.meta.backtest.series;
    t.equal(series.length, WINDOW);
    sameSeries(
      t,
      series,
      (i) => {
        const t0 = DAYS - WINDOW + i;
        const [s0, x0] = [sap[t0 - 1]!, eurusd[t0 - 1]!];
        const v0 = value('put', s0, tauAt(t0 - 1));
        const pnls: number[] = [];
        for (let d = t0 - EST; d < t0; d++) {
          const moved = value('put', s0 * Math.exp(logReturn(sap, d)), tauAt(t0 - 1) - 1 / 252);
          pnls.push(
            eAapl * Math.expm1(logReturn(aapl, d)) + size * x0 * (Math.exp(logReturn(eurusd, d)) * moved - v0) + eCash * Math.expm1(logReturn(eurusd, d)),
          );
        }
        pnls.sort((a, b) => a - b);
        const forecast = -pnls[Math.ceil(0.01 * EST) - 1]!;
        const pnl = realised('put', t0) + eCash * (eurusd[t0]! / eurusd[t0 - 1]! - 1);
        return { date: iso(t0), var: forecast, pnl: pnl };
      },
      `${WINDOW} forecasts and P&Ls as recomputed`,
    );
    t.equal(r.body.meta.backtest.exceptions, series.filter((x: { pnl: number; var: number }) => x.pnl < -x.var).length);
  });

  t.test('parametric, delta: the delta-normal VaR with the option a foreign stock of Δ·S·X', async (t) => {
    const r = await post(
      body({ method: 'parametric_normal', method_options: { valuation: 'delta' }, positions: [{ symbol: 'AAPL', quantity: 50 }, sapOption('call', -10)] }),
    );
    t.equal(r.status, 200, r.text.slice(0, 300));
    const converted = sap.map((p, d) => p * eurusd[d]!);
    sameSeries(
      t,
      r.body.meta.backtest.series,
      (i) => {
        const t0 = DAYS - WINDOW + i;
        const e = [eAapl, size * blackScholesDelta('call', sap[t0 - 1]!, K, R, VOL, tauAt(t0 - 1)) * sap[t0 - 1]! * eurusd[t0 - 1]!];
        const rets: number[][] = [];
        for (let d = t0 - EST; d < t0; d++) rets.push([logReturn(aapl, d), logReturn(converted, d)]);
        const mu = [0, 1].map((j) => rets.reduce((a, x) => a + x[j]!, 0) / EST);
        let variance = 0;
        for (let a = 0; a < 2; a++) {
          for (let b = 0; b < 2; b++) variance += e[a]! * e[b]! * (rets.reduce((acc, x) => acc + (x[a]! - mu[a]!) * (x[b]! - mu[b]!), 0) / (EST - 1));
        }
        const forecast = Z99 * Math.sqrt(variance) - (e[0]! * mu[0]! + e[1]! * mu[1]!);
        return { date: iso(t0), var: forecast, pnl: realised('call', t0) };
      },
      'every forecast and P&L as recomputed',
    );
  });

  t.test('an option in the reporting currency: the single-currency dataset’s backtest, to the bit', async (t) => {
    const positions = [
      { symbol: 'AAPL', quantity: 50 },
      { ...sapOption('call', 10), option: { ...sapOption('call', 10).option, underlying: 'AAPL', strike: 100 } },
    ];
    for (const method of ['historical', 'monte_carlo_normal']) {
      const over = { method, positions, ...(method === 'historical' ? {} : { simulations: 1000, method_options: { seed: 11 } }) };
      const [m, p] = [await post(body(over)), await post(body({ ...over, dataset_id: plain }))];
      t.equal(m.status, 200, m.text.slice(0, 300));
      t.same(m.body.meta.backtest, p.body.meta.backtest, `${method}: the same series and statistics`);
    }
  });

  t.test('Monte Carlo, full: seeded, repeats bit for bit; a short foreign call loses in its tail', async (t) => {
    const json = body({ method: 'monte_carlo_normal', simulations: 2000, method_options: { seed: 3 }, positions: [sapOption('call', -10)] });
    const [a, b] = [await post(json), await post(json)];
    t.equal(a.status, 200, a.text.slice(0, 300));
    t.same(a.body.meta.backtest, b.body.meta.backtest);
    t.ok(
      a.body.meta.backtest.series.every((x: { var: number; es: number }) => x.var > 0 && x.es >= x.var),
      'VaR > 0, ES ≥ VaR',
    );
    const r = await post(body({ currency: 'JPY', method: 'historical', positions: [sapOption('call', 1)] }));
    t.equal(r.status, 422, r.text.slice(0, 300));
    t.equal(r.body.detail.code, 'MISSING_FX_RATE');
  });
});
