// Options (API contract §15) through the real server: the price against an independent
// Black–Scholes (Φ from erfc), the exact single-option VaR of a monotone loss (docs/oracles.md)
// bracketed by Monte Carlo for a long call, a short call and a long put, delta valuation equal to a
// linear book of Δ·S to the bit, and the nonlinearity's sign for a short-gamma book (each refusal:
// options-refusals.test.ts).
import t from 'tap';
import { calculate } from '../helpers/http.js';
import { serviceWithPrices } from '../helpers/dataset-service.js';
import { iso, walk } from '../helpers/price-series.js';
import { DAYS, EXPIRY, S0, option, prices } from '../helpers/aapl-option-market.js';
import { blackScholes, blackScholesDelta, blackScholesGamma, blackScholesTheta, type OptionType } from '../helpers/black-scholes.js';
import { referenceEwmaFilter } from '../helpers/variance-filter-reference.js';

/** z at 0.99, docs/oracles.md. */
const Z99 = 2.326347874040841;

/** The oracle with this file's argument order (q before σ). */
const bs = (type: OptionType, s: number, k: number, r: number, q: number, vol: number, tau: number) => blackScholes(type, s, k, r, vol, tau, q);

const LAST = iso(DAYS - 1);
const TAU = 91 / 365;
// The fitted model: sample mean and (n − 1) deviation of the daily log returns.
const logs = prices.slice(1).map((p, i) => Math.log(p / prices[i]!));
const MU = logs.reduce((a, x) => a + x, 0) / logs.length;
const SIGMA = Math.sqrt(logs.reduce((a, x) => a + (x - MU) ** 2, 0) / (logs.length - 1));

t.test('options', async (t) => {
  const { s, body } = await serviceWithPrices(t, { AAPL: prices, MSFT: walk(DAYS, 7) }, 200_000);
  const K = Math.round(S0);

  t.test('price and Greeks of the position, against an independent pricer', async (t) => {
    const r = await calculate(s.base, s.key, body({ positions: [option({ dividend_yield: 0.01 }, 10, 100)], simulations: 1000 }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const c = r.body.meta.contributions[0];
    const unit = bs('call', S0, K, 0.03, 0.01, 0.25, TAU);
    t.ok(Math.abs(c.price - 1000 * unit) <= 1e-9 * 1000 * S0, `price ${c.price} vs ${1000 * unit}`);
    const h = S0 * 1e-4;
    const delta = (bs('call', S0 + h, K, 0.03, 0.01, 0.25, TAU) - bs('call', S0 - h, K, 0.03, 0.01, 0.25, TAU)) / (2 * h);
    t.ok(Math.abs(c.delta - 1000 * delta * S0) <= 1e-5 * 1000 * S0, 'money delta');
    t.equal(c.option, 0);
    t.equal(r.body.meta.valuation.mode, 'full');
    t.equal(r.body.meta.valuation.options, 1);
  });

  t.test('single option: Monte Carlo brackets the exact VaR of a monotone loss', async (t) => {
    const qLow = MU - Z99 * SIGMA;
    const qHigh = MU + Z99 * SIGMA;
    const tauH = TAU - 1 / 252;
    const cases = [
      { name: 'long call', pos: option({}), exact: bs('call', S0, K, 0.03, 0, 0.25, TAU) - bs('call', S0 * Math.exp(qLow), K, 0.03, 0, 0.25, tauH) },
      { name: 'short call', pos: option({}, -1), exact: bs('call', S0 * Math.exp(qHigh), K, 0.03, 0, 0.25, tauH) - bs('call', S0, K, 0.03, 0, 0.25, TAU) },
      { name: 'long put', pos: option({ type: 'put' }), exact: bs('put', S0, K, 0.03, 0, 0.25, TAU) - bs('put', S0 * Math.exp(qHigh), K, 0.03, 0, 0.25, tauH) },
    ];
    for (const c of cases) {
      const r = await calculate(s.base, s.key, body({ positions: [c.pos] }));
      t.equal(r.status, 200, r.text.slice(0, 300));
      const m = r.body.meta.metrics;
      const gap = Math.abs(m.value_at_risk - c.exact);
      t.ok(gap <= 4 * m.value_at_risk_standard_error, `${c.name}: VaR ${m.value_at_risk} vs exact ${c.exact} (SE ${m.value_at_risk_standard_error})`);
    }
  });

  t.test('delta valuation is a linear book of Δ·S, to the bit', async (t) => {
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal']) {
      const a = await calculate(
        s.base,
        s.key,
        body({ method, simulations: 20_000, positions: [option({ type: 'put' }, 7, 100)], method_options: { seed: 9, valuation: 'delta' } }),
      );
      t.equal(a.status, 200, a.text.slice(0, 300));
      const dollars = a.body.meta.contributions[0].delta;
      const b = await calculate(
        s.base,
        s.key,
        body({ method, simulations: 20_000, positions: [{ symbol: 'AAPL', market_value: dollars }], method_options: { seed: 9 } }),
      );
      t.equal(b.status, 200, b.text.slice(0, 300));
      t.same(a.body.meta.metrics, b.body.meta.metrics, `${method}: the same metrics`);
      t.equal(a.body.meta.valuation.nonlinearity_var, 0);
    }
  });

  t.test('a short straddle: full revaluation loses more than delta says; delta_gamma in between', async (t) => {
    const straddle = [option({}, -10, 100), option({ type: 'put' }, -10, 100), { symbol: 'MSFT', quantity: 50 }];
    const full = await calculate(s.base, s.key, body({ positions: straddle, time_horizon: 10, simulations: 50_000 }));
    t.equal(full.status, 200, full.text.slice(0, 300));
    const v = full.body.meta.valuation;
    t.ok(v.nonlinearity_var > 3 * v.nonlinearity_var_standard_error, `short gamma: nonlinearity ${v.nonlinearity_var} ± ${v.nonlinearity_var_standard_error}`);
    const es = full.body.meta.contributions.reduce((a: number, c: { component_es: number }) => a + c.component_es, 0);
    t.ok(Math.abs(es - full.body.meta.metrics.expected_shortfall) <= 1e-9 * full.body.meta.metrics.expected_shortfall, 'components add up to ES');
    t.same(
      full.body.meta.contributions.map((c: { symbol: string }) => c.symbol),
      ['MSFT', `AAPL call ${K} ${EXPIRY}`, `AAPL put ${K} ${EXPIRY}`],
    );
    const dg = await calculate(
      s.base,
      s.key,
      body({ positions: straddle, time_horizon: 10, simulations: 50_000, method_options: { seed: 5, valuation: 'delta_gamma' } }),
    );
    t.equal(dg.status, 200, dg.text.slice(0, 300));
    t.ok(dg.body.meta.valuation.nonlinearity_var > 0, 'delta_gamma sees the short gamma too');
  });

  t.test('delta_gamma over history: Δ·dS + ½Γ·dS² + Θ·T/252 per row, recomputed here from closed-form Greeks', async (t) => {
    const msft = walk(DAYS, 7);
    const book = [
      { type: 'call' as const, q: 0.01, quantity: -20, multiplier: 100 },
      { type: 'put' as const, q: 0, quantity: 15, multiplier: 100 },
    ];
    const stock = 250_000;
    const positions = [...book.map((o) => option({ type: o.type, dividend_yield: o.q }, o.quantity, o.multiplier)), { symbol: 'MSFT', market_value: stock }];
    const r = await calculate(s.base, s.key, body({ method: 'historical', positions, simulations: undefined, method_options: { valuation: 'delta_gamma' } }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    const greeks = book.map((o) => ({
      size: o.quantity * o.multiplier,
      delta: blackScholesDelta(o.type, S0, K, 0.03, 0.25, TAU, o.q),
      gamma: blackScholesGamma(S0, K, 0.03, 0.25, TAU, o.q),
      theta: blackScholesTheta(o.type, S0, K, 0.03, 0.25, TAU, o.q),
    }));
    const pnl = logs
      .map((x, d) => {
        const dS = S0 * Math.expm1(x);
        const options = greeks.reduce((a, g) => a + g.size * (g.delta * dS + 0.5 * g.gamma * dS * dS + g.theta / 252), 0);
        return options + stock * Math.expm1(Math.log(msft[d + 1]! / msft[d]!));
      })
      .sort((a, b) => a - b);
    const want = -pnl[Math.ceil(0.01 * pnl.length - 1e-9) - 1]!;
    const got = r.body.meta.metrics.value_at_risk;
    t.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `VaR ${got} vs ${want}`);
    const contributions = r.body.meta.contributions.filter((c: { option?: number }) => c.option !== undefined);
    greeks.forEach((g, i) => {
      const c = contributions[i];
      t.ok(Math.abs(c.delta - g.size * g.delta * S0) <= 1e-9 * Math.abs(g.size * S0), `money delta ${c.delta}`);
      t.ok(Math.abs(c.gamma - g.size * g.gamma * S0 * S0) <= 1e-9 * Math.abs(g.size * g.gamma * S0 * S0), `money gamma ${c.gamma}`);
      t.ok(Math.abs(c.theta - g.size * g.theta) <= 1e-9 * Math.abs(g.size * g.theta), `theta ${c.theta}`);
    });
    t.equal(r.body.meta.valuation.mode, 'delta_gamma');
  });

  t.test('a covered call: the option reduces the loss of its underlying', async (t) => {
    const stock = await calculate(s.base, s.key, body({ positions: [{ symbol: 'AAPL', quantity: 100 }], time_horizon: 10, simulations: 50_000 }));
    const covered = await calculate(
      s.base,
      s.key,
      body({ positions: [{ symbol: 'AAPL', quantity: 100 }, option({}, -1, 100)], time_horizon: 10, simulations: 50_000 }),
    );
    t.equal(covered.status, 200, covered.text.slice(0, 300));
    t.ok(covered.body.meta.metrics.value_at_risk < stock.body.meta.metrics.value_at_risk, 'a short call caps nothing on the downside but adds its premium');
    t.equal(covered.body.meta.contributions[0].component_es + covered.body.meta.contributions[1].component_es > 0, true);
    t.ok(covered.body.meta.contributions[1].component_es < 0, 'the short call hedges in the tail');
  });

  t.test('an expiry on the last date is worth its intrinsic value', async (t) => {
    const r = await calculate(s.base, s.key, body({ positions: [option({ expiry: LAST, strike: S0 / 2 })], simulations: 1000 }));
    t.equal(r.status, 200, r.text.slice(0, 300));
    t.ok(Math.abs(r.body.meta.contributions[0].price - S0 / 2) <= 1e-9 * S0);
  });

  t.test('filtered history: the option book on the filtered rows, recomputed here', async (t) => {
    const msft = walk(DAYS, 7);
    const returns = new Float64Array(2 * logs.length);
    logs.forEach((x, d) => {
      returns[2 * d] = x;
      returns[2 * d + 1] = Math.log(msft[d + 1]! / msft[d]!);
    });
    const rows = referenceEwmaFilter(returns, 2, 0.94).returns;
    const [quantity, multiplier, stock] = [-20, 100, 400_000];
    const positions = [option({ type: 'call', strike: K }, quantity, multiplier), { symbol: 'MSFT', market_value: stock }];
    const r = await calculate(
      s.base,
      s.key,
      body({ method: 'historical_filtered', positions, simulations: undefined, method_options: { filter: { model: 'ewma', lambda: 0.94 } } }),
    );
    t.equal(r.status, 200, r.text.slice(0, 300));
    const now = bs('call', S0, K, 0.03, 0, 0.25, TAU);
    const pnl = Array.from({ length: logs.length }, (_, d) => {
      const later = bs('call', S0 * Math.exp(rows[2 * d]!), K, 0.03, 0, 0.25, TAU - 1 / 252);
      return quantity * multiplier * (later - now) + stock * Math.expm1(rows[2 * d + 1]!);
    }).sort((a, b) => a - b);
    const want = -pnl[Math.ceil(0.01 * pnl.length - 1e-9) - 1]!;
    const got = r.body.meta.metrics.value_at_risk;
    t.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `VaR ${got} vs ${want}`);
    t.same(Object.keys(r.body.meta.filter ?? {}), ['MSFT', 'AAPL'], 'meta.filter: the stock, then the underlying');
    t.equal(r.body.meta.filter.AAPL.current_volatility, referenceEwmaFilter(returns, 2, 0.94).current[0], 'the underlying’s σ_{m+1}');
    t.equal(r.body.meta.valuation?.mode, 'full');
    // T > 1: seeded bootstrap paths of filtered rows, the options aged by the horizon; repeatable.
    const paths = body({ method: 'historical_filtered', positions, time_horizon: 10, simulations: 5000, method_options: { seed: 9 } });
    const [a, b] = [await calculate(s.base, s.key, paths), await calculate(s.base, s.key, paths)];
    t.equal(a.status, 200, a.text.slice(0, 300));
    const [ma, mb] = [a.body.meta.metrics, b.body.meta.metrics];
    t.ok(ma.value_at_risk > got && Number.isFinite(ma.expected_shortfall), `10-day VaR ${ma.value_at_risk} above the 1-day ${got}`);
    t.same(mb, ma, 'the same paths, the same figures');
    const cf = await calculate(s.base, s.key, body({ method: 'cornish_fisher', positions, simulations: undefined }));
    t.equal(cf.status, 422);
    t.same(cf.body?.detail?.errors?.[0]?.loc, ['body', 'method'], 'Cornish–Fisher refused for option books');
  });

  t.test('the listing does not move a figure: options and sensitivities shuffled', async (t) => {
    const call = option({ type: 'call', strike: K + 3 }, -3, 100);
    const put = option({ type: 'put', strike: K - 4, volatility: 0.3 }, 5, 100);
    const black = option({ type: 'call', model: 'black76', strike: K }, 2, 10);
    const sensitivities = [
      { symbol: 'MSFT', delta: 50_000, gamma: 20_000 },
      { symbol: 'AAPL', delta: -10_000, gamma: 5_000 },
    ];
    for (const method of ['monte_carlo_normal', 'historical']) {
      const stated = [{ symbol: 'MSFT', quantity: 1000 }, call, put, { symbol: 'AAPL', quantity: -200 }, black];
      const shuffled = [black, { symbol: 'AAPL', quantity: -200 }, put, call, { symbol: 'MSFT', quantity: 1000 }];
      const ask = (positions: unknown[], sens: unknown[]) =>
        calculate(s.base, s.key, body({ method, positions, sensitivities: sens, simulations: method === 'historical' ? undefined : 20_000 }));
      const [a, b] = [await ask(stated, sensitivities), await ask(shuffled, [...sensitivities].reverse())];
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.same(b.body.meta.metrics, a.body.meta.metrics, `${method}: the same figures to the bit`);
      t.same(b.body.meta.valuation, a.body.meta.valuation, `${method}: the same nonlinearity`);
      const rows = (r: typeof a) =>
        r.body.meta.contributions.map((c: { symbol: string; option?: number; sensitivity?: number }) => [c.symbol, c.option, c.sensitivity]);
      t.same(
        rows(a).map((x: unknown[]) => x[0]),
        ['MSFT', 'AAPL', `AAPL call ${K + 3} ${EXPIRY}`, `AAPL put ${K - 4} ${EXPIRY}`, `AAPL call ${K} ${EXPIRY}`, 'MSFT sensitivity', 'AAPL sensitivity'],
        'rows in the order stated',
      );
      t.same(
        rows(a)
          .slice(2)
          .map((x: unknown[]) => x[1] ?? x[2]),
        [1, 2, 4, 0, 1],
        'each row names its position or sensitivity',
      );
      const byName = (r: typeof a) =>
        Object.fromEntries(r.body.meta.contributions.map((c: { symbol: string; component_es: number }) => [c.symbol, c.component_es]));
      t.same(byName(b), byName(a), `${method}: each row's component ES the same, whatever its place`);
    }
  });
});
