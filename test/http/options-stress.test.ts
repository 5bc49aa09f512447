// Stress with option books (API contract §10, §15) through the real server: every scenario re-prices
// each option fully at S·(1 + return), τ unchanged, volatility + vol_shift — checked against an
// independent Black–Scholes written here (Φ from erfc): a shock, vol_shift on a straddle (and ≈ vega ×
// shift), a dated window, the worst window against a brute-force search with the options repriced,
// a −100 % shock at the pricer's limit; a stock book's figures unchanged; every refusal at its field.
import t from 'tap';
import { call, csvForm, refusals } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, walk, wideCsv } from '../helpers/price-series.js';
import { blackScholes as bs } from '../helpers/black-scholes.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const phi = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

const DAYS = 600;
const aapl = walk(DAYS, 31).map((p) => Number(p.toPrecision(12)));
const msft = walk(DAYS, 7).map((p) => Number(p.toPrecision(12)));
const EXPIRY = iso(DAYS - 1 + 91);
const TAU = 91 / 365;
const S0 = aapl[DAYS - 1]!;
const K = Math.round(S0);
const R = 0.03;
const VOL = 0.25;
const STRESS = '/api/v1/risk/stress';

const option = (type: 'call' | 'put', quantity: number, multiplier = 100, o: Record<string, unknown> = {}) => ({
  option: { underlying: 'AAPL', type, strike: K, expiry: EXPIRY, volatility: VOL, rate: R, ...o },
  quantity,
  multiplier,
});
/** Relative closeness to `want` (absolute near 0). */
const close = (got: number, want: number, rel = 1e-9) => Math.abs(got - want) <= rel * Math.max(1, Math.abs(want));

t.test('stress with options', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ AAPL: aapl, MSFT: msft })) });
  t.equal(up.status, 200, up.text.slice(0, 300));
  const post = (json: Record<string, unknown>) => call(s.base, 'POST', STRESS, { key: s.key, json });
  const body = (over: Record<string, unknown>) => ({ dataset_id: up.body.dataset_id, currency: 'USD', ...over });

  t.test('a long call under a +10 % shock re-prices at S·1.1, τ unchanged', async (t) => {
    const positions = [{ symbol: 'MSFT', quantity: 50 }, option('call', 10)];
    const r = await post(body({ positions, scenarios: [{ type: 'shock', shocks: { AAPL: 0.1, MSFT: -0.05 } }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const res = r.body.meta.results[0];
    const want = 1000 * (bs('call', S0 * 1.1, K, R, VOL, TAU) - bs('call', S0, K, R, VOL, TAU));
    const [stock, opt] = res.items;
    t.equal(stock.symbol, 'MSFT');
    t.equal(stock.pnl, 50 * msft[DAYS - 1]! * -0.05, 'the stock position as before');
    t.equal(opt.symbol, `AAPL call ${K} ${EXPIRY}`);
    t.equal(opt.option, 1);
    t.equal(opt.return, 0.1);
    t.ok(close(opt.pnl, want), `option P&L ${opt.pnl} vs ${want}`);
    t.ok(close(opt.value, 1000 * bs('call', S0 * 1.1, K, R, VOL, TAU)), 'its value in the scenario');
    t.equal(res.pnl, stock.pnl + opt.pnl, 'the book P&L adds its positions');
    t.equal(res.pnl_pct, res.pnl / r.body.meta.portfolio_value);
  });

  t.test('vol_shift +0.10 on a straddle: the repriced difference, ≈ vega × 0.1', async (t) => {
    const positions = [option('call', 1, 1), option('put', 1, 1)];
    const r = await post(body({ positions, scenarios: [{ type: 'shock', shocks: { AAPL: 0 }, vol_shift: 0.1 }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const res = r.body.meta.results[0];
    const exact = (['call', 'put'] as const).map((k) => bs(k, S0, K, R, VOL + 0.1, TAU) - bs(k, S0, K, R, VOL, TAU));
    res.items.forEach((it: { pnl: number }, i: number) => t.ok(close(it.pnl, exact[i]!), `${it.pnl} vs ${exact[i]}`));
    const d1 = (Math.log(S0 / K) + (R + (VOL * VOL) / 2) * TAU) / (VOL * Math.sqrt(TAU));
    const vega = 2 * S0 * phi(d1) * Math.sqrt(TAU);
    t.ok(res.pnl > 0, 'long volatility gains');
    t.ok(Math.abs(res.pnl - vega * 0.1) <= 0.05 * vega * 0.1, `straddle ${res.pnl} ≈ vega·0.1 ${vega * 0.1}`);
    t.equal(r.body.meta.results[0].scenario.vol_shift, 0.1, 'the scenario as given');
  });

  t.test('a dated window and a conditional scenario re-price at the underlying’s return', async (t) => {
    const scenarios = [
      { type: 'historical_window', start: iso(100), end: iso(200), vol_shift: -0.05 },
      { type: 'conditional', shocks: { MSFT: -0.1 }, horizon: 5 },
    ];
    const r = await post(body({ positions: [option('put', -3, 100)], scenarios }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const [win, cond] = r.body.meta.results;
    const ret = aapl[200]! / aapl[100]! - 1;
    t.equal(win.items[0].return, ret);
    const want = -300 * (bs('put', S0 * (1 + ret), K, R, VOL - 0.05, TAU) - bs('put', S0, K, R, VOL, TAU));
    t.ok(close(win.items[0].pnl, want), `window ${win.items[0].pnl} vs ${want}`);
    const c = cond.items[0];
    const wantCond = -300 * (bs('put', S0 * (1 + c.return), K, R, VOL, TAU) - bs('put', S0, K, R, VOL, TAU));
    t.ok(close(c.pnl, wantCond), `conditional ${c.pnl} vs ${wantCond}`);
  });

  t.test('the worst window equals a brute-force search with the options repriced', async (t) => {
    const H = 10;
    const positions = [{ symbol: 'AAPL', quantity: 100 }, option('put', -20, 100), option('call', -20, 100)];
    const r = await post(body({ positions, scenarios: [{ type: 'historical_worst', horizon: H, vol_shift: 0.05 }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const v0 = ['put', 'call'].map((k) => bs(k as 'call' | 'put', S0, K, R, VOL, TAU));
    let worst = -1;
    let worstPnl = Infinity;
    for (let s = 0; s + H < DAYS; s++) {
      const g = aapl[s + H]! / aapl[s]! - 1;
      const after = ['put', 'call'].map((k) => bs(k as 'call' | 'put', S0 * (1 + g), K, R, VOL + 0.05, TAU));
      const pnl = 100 * S0 * g - 2000 * (after[0]! - v0[0]!) - 2000 * (after[1]! - v0[1]!);
      if (pnl < worstPnl) [worst, worstPnl] = [s, pnl];
    }
    const res = r.body.meta.results[0];
    t.equal(res.start, iso(worst), 'the same window');
    t.equal(res.end, iso(worst + H));
    t.ok(close(res.pnl, worstPnl), `worst ${res.pnl} vs ${worstPnl}`);
  });

  t.test('a −100 % shock: the call is worth 0, the put K·e^{−rτ}', async (t) => {
    const r = await post(body({ positions: [option('call', 1, 1), option('put', 1, 1)], scenarios: [{ type: 'shock', shocks: { AAPL: -1 } }] }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const [c, p] = r.body.meta.results[0].items;
    t.equal(c.value, 0);
    t.ok(close(p.value, K * Math.exp(-R * TAU)), `${p.value}`);
  });

  t.test('a stock book: vol_shift changes nothing, and option positions leave its items as they were', async (t) => {
    const stock = [{ symbol: 'AAPL', quantity: 100 }];
    const scenarios = [
      { type: 'shock', shocks: { AAPL: -0.2 } },
      { type: 'historical_worst', horizon: 5 },
    ];
    const plain = await post(body({ positions: stock, scenarios }));
    const shifted = await post(body({ positions: stock, scenarios: scenarios.map((x) => ({ ...x, vol_shift: 0.2 })) }));
    t.equal(plain.status, 200, plain.text.slice(0, 300));
    const strip = (results: { scenario: unknown }[]) => results.map(({ scenario: _, ...rest }) => rest);
    t.same(strip(shifted.body.meta.results), strip(plain.body.meta.results));
    t.same(
      plain.body.meta.results.map((x: { scenario: unknown }) => x.scenario),
      scenarios,
      'the scenarios echoed as given (no vol_shift written in)',
    );
    const withOption = await post(body({ positions: [...stock, option('call', 0)], portfolio_value: plain.body.meta.portfolio_value, scenarios }));
    t.equal(withOption.status, 200, withOption.text.slice(0, 300));
    t.same(withOption.body.meta.results[0].items[0], plain.body.meta.results[0].items[0], 'the stock item to the bit');
    t.equal(withOption.body.meta.results[0].pnl, plain.body.meta.results[0].pnl);
  });

  t.test('property: drawn option books and shocks, domain edges included, against the oracle', async (t) => {
    const rand = mulberry32(77);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    // Expiry on the last date (τ = 0: intrinsic), deep in and out of the money, both models, dividends.
    const drawn = Array.from({ length: 40 }, () => {
      const days = pick([0, 1, 30, 91, 365, 3650]);
      const o = {
        type: pick(['call', 'put'] as const),
        strike: Number((S0 * pick([0.2, 0.8, 1, 1.25, 5]) * (0.9 + 0.2 * rand())).toPrecision(8)),
        expiry: iso(DAYS - 1 + days),
        volatility: pick([0.01, 0.2, 0.6, 2]),
        rate: pick([-0.01, 0, 0.05]),
        dividend_yield: pick([0, 0.03]),
        model: pick(['black_scholes', 'black76'] as const),
      };
      return { o, days, quantity: pick([-7, 1, 250]), multiplier: pick([1, 100]) };
    });
    const scenarios = Array.from({ length: 30 }, () => ({
      type: 'shock',
      shocks: { AAPL: pick([-1, -0.5, -0.1, 0, 0.05, 0.3, 10]) },
      vol_shift: pick([-0.005, 0, 0.1, 2.5]),
    }));
    const r = await post(
      body({ positions: drawn.map((d) => ({ option: { underlying: 'AAPL', ...d.o }, quantity: d.quantity, multiplier: d.multiplier })), scenarios }),
    );
    t.equal(r.status, 200, r.text.slice(0, 300));
    let bad = 0;
    r.body.meta.results.forEach((res: { pnl: number; items: { pnl: number; value: number }[] }, j: number) => {
      const shock = scenarios[j]!.shocks.AAPL;
      let total = 0;
      res.items.forEach((it, k) => {
        const { o, days, quantity, multiplier } = drawn[k]!;
        const tau = days / 365;
        const q = o.model === 'black76' ? o.rate : o.dividend_yield;
        const size = quantity * multiplier;
        const after =
          shock === -1
            ? o.type === 'put'
              ? o.strike * Math.exp(-o.rate * tau)
              : 0
            : bs(o.type, S0 * (1 + shock), o.strike, o.rate, o.volatility + scenarios[j]!.vol_shift, tau, q);
        const want = size * (after - bs(o.type, S0, o.strike, o.rate, o.volatility, tau, q));
        total += it.pnl;
        if (!(Number.isFinite(it.pnl) && Math.abs(it.pnl - want) <= 1e-9 * Math.abs(size) * Math.max(S0 * (1 + shock), o.strike))) {
          bad++;
          if (bad < 5) t.fail(`scenario ${j} option ${k} ${JSON.stringify(o)}: ${it.pnl} vs ${want}`);
        }
      });
      if (Math.abs(res.pnl - total) > 1e-9 * Math.abs(total) + 1e-6) bad++;
    });
    t.equal(bad, 0, '40 options × 30 shocks as the oracle prices them');
  });

  t.test('refusals at their fields', async (t) => {
    const refused = refusals(t, post);
    const shock = (over: Record<string, unknown> = {}) => [{ type: 'shock', shocks: { AAPL: -0.1 }, ...over }];
    const positions = [option('call', 1)];
    await refused(body({ positions, scenarios: shock({ vol_shift: -0.25 }) }), 422, 'VALIDATION_ERROR', ['body', 'scenarios', 0, 'vol_shift']);
    await refused(body({ positions, scenarios: shock({ vol_shift: 4.9 }) }), 422, 'VALIDATION_ERROR', ['body', 'scenarios', 0, 'vol_shift']);
    await refused(body({ positions, scenarios: shock({ vol_shift: 6 }) }), 422, 'VALIDATION_ERROR');
    await refused(body({ positions, scenarios: shock({ vol_shift: 'up' }) }), 422, 'VALIDATION_ERROR');
    await refused(body({ positions: [option('call', 1, 1, { underlying: 'NOPE' })], scenarios: shock() }), 422, 'UNKNOWN_SYMBOL', [
      'body',
      'positions',
      0,
      'option',
      'underlying',
    ]);
    await refused(body({ positions: [option('call', 1, 1, { expiry: iso(DAYS - 2) })], scenarios: shock() }), 422, 'VALIDATION_ERROR', [
      'body',
      'positions',
      0,
      'option',
      'expiry',
    ]);
    await refused(body({ positions: [option('call', 1, 1, { strike: 0 })], scenarios: shock() }), 422, 'VALIDATION_ERROR');
    await refused(body({ positions: [option('call', 0)], scenarios: shock() }), 422, 'VALIDATION_ERROR', ['body', 'positions']);
    // A stock position after an option is named at its own index (it was named among the stock positions).
    await refused(body({ positions: [option('call', 1), { symbol: 'MSFT', quantity: 1, market_value: 5 }], scenarios: shock() }), 422, 'VALIDATION_ERROR', [
      'body',
      'positions',
      1,
    ]);
    // A shifted volatility below the pricer's least, 1e-6.
    await refused(body({ positions, scenarios: shock({ vol_shift: 1e-7 - 0.25 }) }), 422, 'VALIDATION_ERROR', ['body', 'scenarios', 0, 'vol_shift']);
    const worst = Array.from({ length: 50 }, (_, i) => ({ type: 'historical_worst', horizon: i + 1 }));
    const seventy = Array.from({ length: 70 }, (_, i) => option('call', 1, 1, { strike: K + i }));
    await refused(body({ positions: seventy, scenarios: worst }), 422, 'VALIDATION_ERROR', ['body', 'scenarios']);
    const many = Array.from({ length: 1001 }, () => option('call', 1));
    await refused(body({ positions: many, scenarios: shock() }), 422, 'VALIDATION_ERROR', ['body', 'positions']);
    await refused(body({ positions: [option('call', 1), { symbol: 'NOPE', quantity: 1 }], scenarios: shock() }), 422, 'UNKNOWN_SYMBOL', [
      'body',
      'positions',
      1,
      'symbol',
    ]);
  });
});
