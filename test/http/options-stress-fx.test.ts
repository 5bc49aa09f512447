// Stress of option books over a multi-currency dataset (API contract §10, §14, §15) through the real
// server, against an independent Black–Scholes written here (Φ from erfc): an option on a foreign
// underlying is repriced on its local price's move and converted at the rate's move, X·(1 + f)·V(S·(1 + u))
// − X·V(S); shocks on the underlying, on the FX pair and on both; a dated window; the worst window
// against a brute-force search; an option in the reporting currency as over the single-currency dataset.
import t from 'tap';
import { call } from '../helpers/http.js';
import { euroMarket, uploadEuroMarket } from '../helpers/euro-underlying.js';
import { startTestService } from '../helpers/service.js';
import { iso } from '../helpers/price-series.js';
import { blackScholes as bs } from '../helpers/black-scholes.js';

const DAYS = 400;
const { aapl, sap, eurusd } = euroMarket(DAYS);
const EXPIRY = iso(DAYS - 1 + 91);
const TAU = 91 / 365;
const [S0, X0] = [sap[DAYS - 1]!, eurusd[DAYS - 1]!];
const K = Math.round(S0);
const [R, VOL] = [0.03, 0.25];
const STRESS = '/api/v1/risk/stress';
const sapOption = (type: 'call' | 'put', quantity: number) => ({
  option: { underlying: 'SAP', type, strike: K, expiry: EXPIRY, volatility: VOL, rate: R },
  quantity,
  multiplier: 100,
});
const close = (got: number, want: number, rel = 1e-9) => Math.abs(got - want) <= rel * Math.max(1, Math.abs(want));

t.test('stress of option books over a multi-currency dataset', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const { multi, plain } = await uploadEuroMarket(s.base, s.key, { aapl, sap, eurusd });
  const post = (json: Record<string, unknown>) => call(s.base, 'POST', STRESS, { key: s.key, json });
  const body = (over: Record<string, unknown>) => ({ dataset_id: multi, currency: 'USD', ...over });
  const v0 = bs('put', S0, K, R, VOL, TAU);

  t.test('shocks on the underlying, the pair and both: X·(1 + f)·V(S·(1 + u)) − X·V(S), with vol_shift', async (t) => {
    const positions = [{ symbol: 'AAPL', quantity: 50 }, sapOption('put', -10), { cash: 'EUR', amount: 10_000 }];
    const shocks = [{ SAP: -0.2 }, { EURUSD: -0.1 }, { SAP: -0.2, EURUSD: 0.05, AAPL: 0.03 }];
    const r = await post(body({ positions, scenarios: shocks.map((x) => ({ type: 'shock', shocks: x, vol_shift: 0.1 })) }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    shocks.forEach((shock, i) => {
      const [u, f, a] = [shock.SAP ?? 0, shock.EURUSD ?? 0, shock.AAPL ?? 0];
      const res = r.body.meta.results[i];
      const [stock, cash, opt] = res.items;
      const want = -1000 * X0 * ((1 + f) * bs('put', S0 * (1 + u), K, R, VOL + 0.1, TAU) - v0);
      t.ok(close(opt.pnl, want), `${JSON.stringify(shock)}: option P&L ${opt.pnl} vs ${want}`);
      t.ok(close(opt.value, -1000 * X0 * (1 + f) * bs('put', S0 * (1 + u), K, R, VOL + 0.1, TAU)), 'its value after, in USD');
      t.equal(opt.return, u, 'the option item shows its underlying’s local move');
      t.ok(close(stock.pnl, 50 * aapl[DAYS - 1]! * a), 'the USD stock');
      t.ok(close(cash.pnl, 10_000 * X0 * f), 'the EUR cash');
      t.ok(close(res.pnl, stock.pnl + opt.pnl + cash.pnl), 'the book P&L adds its positions');
    });
  });

  t.test('a dated window and the worst window: local and FX moves over the window, brute force here', async (t) => {
    const H = 5;
    const [from, to] = [100, 130];
    const positions = [sapOption('put', -10), { symbol: 'AAPL', quantity: 20 }];
    const r = await post(
      body({
        positions,
        scenarios: [
          { type: 'historical_window', start: iso(from), end: iso(to) },
          { type: 'historical_worst', horizon: H },
        ],
      }),
    );
    t.equal(r.status, 200, r.text.slice(0, 300));
    const pnlOf = (a: number, b: number) =>
      20 * aapl[DAYS - 1]! * (aapl[b]! / aapl[a]! - 1) - 1000 * X0 * ((eurusd[b]! / eurusd[a]!) * bs('put', S0 * (sap[b]! / sap[a]!), K, R, VOL, TAU) - v0);
    const [dated, worst] = r.body.meta.results;
    t.ok(close(dated.pnl, pnlOf(from, to)), `window ${dated.pnl} vs ${pnlOf(from, to)}`);
    let [start, worstPnl] = [-1, Infinity];
    for (let a = 0; a + H < DAYS; a++) if (pnlOf(a, a + H) < worstPnl) [start, worstPnl] = [a, pnlOf(a, a + H)];
    t.equal(worst.start, iso(start), 'the same worst window');
    t.ok(close(worst.pnl, worstPnl), `worst ${worst.pnl} vs ${worstPnl}`);
  });

  t.test('conditional on the pair: the rate moves with it, the option converts at that move', async (t) => {
    const positions = [sapOption('put', -10), { cash: 'EUR', amount: 10_000 }];
    const r = await post(body({ positions, scenarios: [{ type: 'conditional', shocks: { EURUSD: -0.1 }, horizon: 1 }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const [cash, opt] = r.body.meta.results[0].items;
    t.ok(close(cash.return, -0.1, 1e-9), `the EUR cash moves as its pair: ${cash.return}`);
    const want = -1000 * X0 * ((1 + cash.return) * bs('put', S0 * (1 + opt.return), K, R, VOL, TAU) - v0);
    t.ok(close(opt.pnl, want, 1e-9), `the option at its underlying’s conditional move, converted: ${opt.pnl} vs ${want}`);
  });

  t.test('a book in the reporting currency: the single-currency dataset’s answer, to the bit', async (t) => {
    const scenarios = [
      { type: 'shock', shocks: { AAPL: -0.15, SAP: 0.1 }, vol_shift: 0.05 },
      { type: 'historical_worst', horizon: 10 },
      { type: 'historical_window', start: iso(50), end: iso(90) },
    ];
    const strip = (b: { meta: { calculation_id: string; dataset_id: string } }) => ({ ...b.meta, calculation_id: '', dataset_id: '' });
    for (const [currency, symbol] of [
      ['USD', 'AAPL'],
      ['EUR', 'SAP'],
    ] as const) {
      const call3 = sapOption('call', 3);
      const positions = [
        { symbol, quantity: 5 },
        { ...call3, option: { ...call3.option, underlying: symbol } },
      ];
      const m = await post(body({ currency, positions, scenarios }));
      const single = await post(body({ dataset_id: plain, currency, positions, scenarios }));
      t.equal(m.status, 200, m.text.slice(0, 300));
      t.equal(single.status, 200, single.text.slice(0, 300));
      t.same(strip(m.body), strip(single.body), `a ${currency} book over the multi-currency dataset`);
    }
  });
});
