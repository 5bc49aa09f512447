// Options on a foreign underlying and cash beside options (API contract §14–15) through the real
// server: the identities (one currency, or an option in the reporting currency of a multi-currency
// dataset, give the single-currency figures to the bit), historical VaR recomputed here from the
// CSV (local returns, FX by the direct pair, its inverse or a cross, Black–Scholes of
// test/helpers), delta valuation equal to a foreign stock position to the bit, and the refusals.
import t from 'tap';
import { call, calculate, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { iso, wideCsv } from '../helpers/price-series.js';
import { blackScholes } from '../helpers/black-scholes.js';
import { calcOf, ok, optionsExpiring, uploadWith, walks, type Body } from '../helpers/fx-market.js';

const DAYS = 300;
const walkOf = walks(DAYS, 23);
// SAP in EUR (EURUSD direct into USD), TOYO in JPY (USDJPY inverse), BARC in GBP (cross via EUR).
const CSV = wideCsv({
  SAP: walkOf(120, 0.015),
  BARC: walkOf(2, 0.02),
  AAPL: walkOf(180, 0.018),
  TOYO: walkOf(2500, 0.016),
  EURUSD: walkOf(1.1, 0.005),
  GBPEUR: walkOf(1.17, 0.004),
  USDJPY: walkOf(150, 0.006),
});
const FIELDS = { currencies: JSON.stringify({ SAP: 'EUR', BARC: 'GBP', TOYO: 'JPY' }), base_currency: 'USD' };
// The prices as stored: parsed back from the CSV.
const header = CSV.trim().split('\n')[0]!.split(',');
const table = CSV.trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(',').map(Number));
const col = (name: string) => table.map((row) => row[header.indexOf(name)]!);
const EXPIRY = iso(DAYS - 1 + 91);
const TAU = 91 / 365;
const last = (xs: number[]) => xs[xs.length - 1]!;

/** Units of USD per one unit of each currency, date by date, by the conversion §14 picks. */
const RATES: Record<string, number[]> = {
  USD: col('AAPL').map(() => 1),
  EUR: col('EURUSD'),
  JPY: col('USDJPY').map((x) => 1 / x),
  GBP: col('GBPEUR').map((x, i) => x * col('EURUSD')[i]!),
};
const CURRENCY: Record<string, string> = { SAP: 'EUR', TOYO: 'JPY', BARC: 'GBP', AAPL: 'USD' };

const optionOn = optionsExpiring(EXPIRY);

/**
 * Historical 1-day VaR at 99 % of a call book and cash, recomputed row by row from the CSV; without
 * FX (`fx` false) every FX return is 0: the options convert at the last rate, cash does not move.
 */
function historicalVar(options: { underlying: string; strike: number; quantity: number }[], cash: { ccy: string; amount: number }[], fx = true): number {
  const pnl = table.slice(1).map((_, d) => {
    let total = 0;
    for (const o of options) {
      const s = col(o.underlying);
      const x = RATES[CURRENCY[o.underlying]!]!;
      const [s0, x0] = [last(s), last(x)];
      const r = Math.log(s[d + 1]! / s[d]!);
      const f = fx ? Math.log(x[d + 1]! / x[d]!) : 0;
      const now = blackScholes('call', s0, o.strike, 0.02, 0.3, TAU, 0.01);
      const later = blackScholes('call', s0 * Math.exp(r), o.strike, 0.02, 0.3, TAU - 1 / 252, 0.01);
      total += o.quantity * 10 * (x0 * Math.exp(f) * later - x0 * now);
    }
    for (const c of cash) {
      const x = RATES[c.ccy]!;
      total += fx ? c.amount * last(x) * Math.expm1(Math.log(x[d + 1]! / x[d]!)) : 0;
    }
    return total;
  });
  pnl.sort((a, b) => a - b);
  return -pnl[Math.ceil(0.01 * pnl.length - 1e-9) - 1]!;
}

t.test('options on foreign underlyings', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const up = await uploadWith(s.base, s.key, CSV, FIELDS);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;
  const plain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(CSV) });
  t.equal(plain.status, 200, ok(plain));
  const methods: Body[] = [
    { method: 'monte_carlo_normal', simulations: 20_000, method_options: { seed: 3 } },
    { method: 'monte_carlo_student_t', simulations: 20_000, method_options: { seed: 3, valuation: 'delta_gamma' } },
    { method: 'historical' },
    { method: 'parametric_normal', method_options: { valuation: 'delta' } },
  ];

  t.test('identity: an option in the reporting currency gives the single-currency figures, to the bit', async (t) => {
    const usd = await uploadWith(s.base, s.key, wideCsv({ AAPL: col('AAPL') }), { base_currency: 'USD' });
    const usdPlain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ AAPL: col('AAPL') })) });
    const cases: [string, string, string, string][] = [
      [usd.body.dataset_id as string, usdPlain.body.dataset_id as string, 'AAPL', 'USD'],
      [ds, plain.body.dataset_id as string, 'SAP', 'EUR'],
    ];
    for (const [multi, single, sym, ccy] of cases) {
      for (const m of methods) {
        const book = { currency: ccy, positions: [optionOn(sym, Math.round(last(col(sym))), -3), { symbol: sym, quantity: 20 }] };
        const a = await calculate(s.base, s.key, calcOf(multi, { ...m, ...book }));
        const b = await calculate(s.base, s.key, calcOf(single, { ...m, ...book }));
        t.equal(a.status, 200, ok(a));
        t.equal(b.status, 200, ok(b));
        t.same(a.body.meta.metrics, b.body.meta.metrics, `${sym} in ${ccy}, ${m.method as string}: the same figures`);
        t.same(a.body.meta.contributions, b.body.meta.contributions);
        t.same(a.body.meta.valuation, b.body.meta.valuation);
        const fx = a.body.meta.fx;
        t.same(
          [fx.fx_effect_var, fx.fx_effect_es, fx.var_without_fx, fx.es_without_fx],
          [0, 0, a.body.meta.metrics.value_at_risk, a.body.meta.metrics.expected_shortfall],
          'no FX effect: the book without FX is the book',
        );
        t.equal(b.body.meta.fx, undefined, 'a single-currency dataset states no FX');
      }
    }
  });

  t.test('historical VaR of a foreign call and foreign cash, recomputed from the CSV', async (t) => {
    const k = Math.round(last(col('SAP')));
    const r = await calculate(s.base, s.key, calcOf(ds, { positions: [optionOn('SAP', k, 5), { cash: 'GBP', amount: 2000 }, { cash: 'EUR', amount: -1500 }] }));
    t.equal(r.status, 200, ok(r));
    const want = historicalVar(
      [{ underlying: 'SAP', strike: k, quantity: 5 }],
      [
        { ccy: 'GBP', amount: 2000 },
        { ccy: 'EUR', amount: -1500 },
      ],
    );
    const got = r.body.meta.metrics.value_at_risk;
    t.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `VaR ${got} vs ${want}`);
    const without = historicalVar([{ underlying: 'SAP', strike: k, quantity: 5 }], [], false);
    const fx = r.body.meta.fx;
    t.ok(Math.abs(fx.var_without_fx - without) <= 1e-9 * without, `VaR without FX ${fx.var_without_fx} vs ${without}`);
    t.ok(Math.abs(fx.fx_effect_var - (want - without)) <= 1e-9 * want, `FX effect ${fx.fx_effect_var} vs ${want - without}`);
    t.same(
      fx.pairs.map((p: { pair: string }) => p.pair),
      ['EURUSD', 'GBPUSD'],
      'the conversions the book uses',
    );
    const rows = r.body.meta.currency_breakdown as { currency: string; gross: number; net: number; component_es: number }[];
    t.same(
      rows.map((x) => x.currency),
      ['EUR', 'GBP'],
      'the option in its underlying’s currency, beside the cash',
    );
    const es = r.body.meta.metrics.expected_shortfall;
    t.ok(Math.abs(rows.reduce((a, x) => a + x.component_es, 0) - es) <= 1e-9 * es, 'the breakdown adds up to ES');
    const c = r.body.meta.contributions.find((x: { option?: number }) => x.option === 0);
    t.ok(
      Math.abs(rows[0]!.net - (c.delta - 1500 * last(RATES.EUR!))) <= 1e-9 * Math.abs(rows[0]!.gross),
      'EUR: the option at its money delta, less the short euros',
    );
    const unit = blackScholes('call', last(col('SAP')), k, 0.02, 0.3, TAU, 0.01);
    t.ok(Math.abs(c.price - 50 * last(RATES.EUR!) * unit) <= 1e-9 * c.price, 'price in USD: × the last EURUSD');
  });

  t.test('an inverse and a cross conversion, against values computed here', async (t) => {
    for (const [sym, ccy] of [
      ['TOYO', 'JPY'],
      ['BARC', 'GBP'],
    ] as const) {
      const k = Number(last(col(sym)).toPrecision(3));
      const r = await calculate(s.base, s.key, calcOf(ds, { positions: [optionOn(sym, k, 4)] }));
      t.equal(r.status, 200, ok(r));
      const want = historicalVar([{ underlying: sym, strike: k, quantity: 4 }], []);
      const got = r.body.meta.metrics.value_at_risk;
      t.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `${sym} (${ccy}): VaR ${got} vs ${want}`);
      const unit = blackScholes('call', last(col(sym)), k, 0.02, 0.3, TAU, 0.01);
      const price = r.body.meta.contributions[0].price;
      t.ok(Math.abs(price - 40 * last(RATES[ccy]!) * unit) <= 1e-9 * price, `${sym}: price at the ${ccy}USD rate`);
    }
  });

  t.test('delta valuation of a foreign option is a foreign stock position of Δ·S, to the bit', async (t) => {
    for (const m of methods) {
      const options = { ...((m.method_options as Body | undefined) ?? {}), valuation: 'delta' };
      const a = await calculate(s.base, s.key, calcOf(ds, { ...m, method_options: options, positions: [optionOn('SAP', 118, 7, 'put')] }));
      t.equal(a.status, 200, ok(a));
      const dollars = a.body.meta.contributions[0].delta;
      const b = await calculate(
        s.base,
        s.key,
        calcOf(ds, { ...m, method_options: { ...options, valuation: undefined }, positions: [{ symbol: 'SAP', market_value: dollars }] }),
      );
      t.equal(b.status, 200, ok(b));
      t.same(a.body.meta.metrics, b.body.meta.metrics, `${m.method as string}: the same figures`);
      const [fa, fb] = [a.body.meta.fx, b.body.meta.fx];
      for (const k of ['var_without_fx', 'es_without_fx', 'fx_effect_var', 'fx_effect_es', 'fx_effect_var_standard_error', 'fx_effect_es_standard_error']) {
        t.ok(Math.abs(fa[k] - fb[k]) <= 1e-9 * Math.abs(fb.var_without_fx), `${m.method as string}: ${k} ${fa[k]} as the stock's ${fb[k]}`);
      }
      t.same(a.body.meta.currency_breakdown, b.body.meta.currency_breakdown, 'the same breakdown');
    }
  });

  t.test('the FX effect of a foreign option book under Monte Carlo: finite, with its error, for each valuation', async (t) => {
    for (const valuation of ['full', 'delta_gamma', 'delta']) {
      const r = await calculate(
        s.base,
        s.key,
        calcOf(ds, {
          method: 'monte_carlo_student_t',
          simulations: 20_000,
          method_options: { seed: 8, valuation },
          positions: [optionOn('SAP', 118, -6, 'put'), optionOn('AAPL', 180, 3), { symbol: 'TOYO', quantity: 40 }],
          sensitivities: [{ symbol: 'AAPL', delta: 500, gamma: -20 }],
        }),
      );
      t.equal(r.status, 200, ok(r));
      const fx = r.body.meta.fx;
      const m = r.body.meta.metrics;
      t.ok(Math.abs(m.value_at_risk - fx.var_without_fx - fx.fx_effect_var) <= 1e-6 * m.value_at_risk, `${valuation}: VaR = without FX + effect`);
      t.ok(
        fx.fx_effect_var !== 0 && fx.fx_effect_var_standard_error > 0 && Number.isFinite(fx.fx_effect_es_standard_error),
        `${valuation}: effect ${fx.fx_effect_var} ± ${fx.fx_effect_var_standard_error}`,
      );
      const rows = r.body.meta.currency_breakdown as { currency: string; component_es: number }[];
      t.same(
        rows.map((x) => x.currency),
        ['EUR', 'JPY', 'USD'],
      );
      t.ok(Math.abs(rows.reduce((a, x) => a + x.component_es, 0) - m.expected_shortfall) <= 1e-9 * m.expected_shortfall, `${valuation}: adds up to ES`);
    }
  });

  t.test('with a what-if, meta.fx is the book’s before the trades', async (t) => {
    const positions = [optionOn('SAP', 120, 4), { cash: 'EUR', amount: 800 }];
    const m = { method: 'monte_carlo_normal', simulations: 10_000, method_options: { seed: 12 } };
    const alone = await calculate(s.base, s.key, calcOf(ds, { ...m, positions }));
    const traded = await calculate(s.base, s.key, calcOf(ds, { ...m, positions, what_if: { trades: [optionOn('SAP', 110, -2, 'put')] } }));
    t.equal(traded.status, 200, ok(traded));
    t.same(traded.body.meta.fx, alone.body.meta.fx, 'the same FX figures as the book alone (the same symbols, so the same scenarios)');
    t.same(traded.body.meta.currency_breakdown, alone.body.meta.currency_breakdown);
  });

  t.test('filtered history takes a foreign option book', async (t) => {
    const positions = [optionOn('TOYO', 2500, 2), { cash: 'EUR', amount: 1000 }];
    for (const time_horizon of [1, 5]) {
      const r = await calculate(
        s.base,
        s.key,
        calcOf(ds, { method: 'historical_filtered', time_horizon, simulations: 2000, method_options: { seed: 4 }, positions }),
      );
      t.equal(r.status, 200, ok(r));
      const m = r.body.meta.metrics;
      t.ok(Number.isFinite(m.value_at_risk) && m.value_at_risk > 0 && m.expected_shortfall >= m.value_at_risk, `T = ${time_horizon}: VaR ${m.value_at_risk}`);
    }
  });

  t.test('cash worth nothing in the reporting currency beside an option: the option carries the book', async (t) => {
    // 5e-324 yen is 0 dollars: the stock part is empty, the option's delta is the capital.
    const option = optionOn('SAP', Math.round(last(col('SAP'))), 5);
    for (const m of [{ method: 'historical' }, { method: 'monte_carlo_normal', simulations: 1000, method_options: { seed: 0 }, portfolio_value: 1e-6 }]) {
      const r = await calculate(s.base, s.key, calcOf(ds, { ...m, positions: [option, { cash: 'JPY', amount: 5e-324 }] }));
      t.equal(r.status, 200, ok(r));
      t.ok(r.body.meta.metrics.value_at_risk > 0, `${m.method}: VaR ${r.body.meta.metrics.value_at_risk}`);
      if (m.method === 'historical') {
        const alone = await calculate(s.base, s.key, calcOf(ds, { ...m, positions: [option] }));
        t.same(r.body.meta.metrics, alone.body.meta.metrics, 'the figures of the option alone');
      }
    }
  });

  t.test('refusals', async (t) => {
    const noRate = await uploadWith(s.base, s.key, wideCsv({ SAP: col('SAP'), AAPL: col('AAPL') }), {
      currencies: JSON.stringify({ SAP: 'EUR' }),
      base_currency: 'USD',
    });
    t.equal(noRate.status, 200, ok(noRate));
    const r = await calculate(s.base, s.key, calcOf(noRate.body.dataset_id as string, { positions: [optionOn('SAP', 120, 1)] }));
    t.equal(r.status, 422);
    t.equal(r.body.detail.code, 'MISSING_FX_RATE');
    t.equal(r.body.detail.pair, 'EURUSD');
    const sens = await calculate(
      s.base,
      s.key,
      calcOf(ds, {
        positions: [optionOn('SAP', 120, 1)],
        sensitivities: [
          { symbol: 'AAPL', delta: 10 },
          { symbol: 'TOYO', delta: 5 },
        ],
      }),
    );
    t.equal(sens.status, 422);
    t.same(sens.body?.detail?.errors?.[0]?.loc, ['body', 'sensitivities', 1, 'symbol']);
    const ok2 = await calculate(s.base, s.key, calcOf(ds, { positions: [optionOn('SAP', 120, 1)], sensitivities: [{ symbol: 'AAPL', delta: 10 }] }));
    t.equal(ok2.status, 200, 'a sensitivity in the reporting currency is taken');
  });
});
