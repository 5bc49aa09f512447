// Multi-currency books (API contract §14) through the real server: cash, the identities (a
// single-currency book gives today's figures to the bit), meta.fx on the same scenarios and the
// currency breakdown, the parametric oracle of §14 through a dataset whose R + F has exactly its
// moments, Monte Carlo against the lognormal closed form, and more factors than instruments.
import t from 'tap';
import { call, calculate, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { wideCsv } from '../helpers/price-series.js';
import { calcOf, CURRENCIES, marketCsv, ok, orthonormalReturns, pricesFrom, uploadWith, type Body, type Meta } from '../helpers/fx-market.js';

t.test('multi-currency books', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const csv = marketCsv();
  const up = await uploadWith(s.base, s.key, csv, CURRENCIES);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;

  t.test('cash: historical VaR recomputed from the FX column', async (t) => {
    const r = await calculate(s.base, s.key, calcOf(ds, { positions: [{ cash: 'EUR', amount: 250_000 }] }));
    t.equal(r.status, 200, ok(r));
    const rows = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[4]));
    const rate = rows[rows.length - 1]!;
    const e = 250_000 * rate;
    const pnl = rows
      .slice(1)
      .map((x, i) => e * Math.expm1(Math.log(x / rows[i]!)))
      .sort((a, b) => a - b);
    const k = Math.ceil(0.01 * pnl.length);
    t.ok(Math.abs(r.body.meta.metrics.value_at_risk - -pnl[k - 1]!) <= 1e-9 * e, 'VaR = −x_(k) of e·(e^f − 1)');
    t.equal(r.body.meta.fx.var_without_fx, 0, 'without FX, cash does not move');
    t.equal(r.body.meta.fx.fx_effect_var, r.body.meta.metrics.value_at_risk);
  });

  t.test('identity: a single-currency book gives the figures of the dataset without currencies, to the bit', async (t) => {
    const plain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(csv) });
    const methods: Body[] = [
      { method: 'monte_carlo_normal', simulations: 20_000, time_horizon: 5, method_options: { seed: 3 } },
      { method: 'monte_carlo_student_t', simulations: 20_000, time_horizon: 5, portfolio_mode: 'rebalanced', method_options: { seed: 3 } },
      { method: 'historical', time_horizon: 5 },
      { method: 'parametric_normal', time_horizon: 5 },
    ];
    for (const m of methods) {
      const book = { positions: [{ symbol: 'AAPL', quantity: 1000 }] };
      const a = await calculate(s.base, s.key, calcOf(ds, { ...m, ...book }));
      const b = await calculate(s.base, s.key, calcOf(plain.body.dataset_id as string, { ...m, ...book }));
      t.equal(a.status, 200, ok(a));
      t.same(a.body.meta.metrics, b.body.meta.metrics, `${m.method as string}: the same figures`);
      t.same(a.body.meta.contributions, b.body.meta.contributions);
      t.equal(a.body.meta.fx.fx_effect_var, 0);
      t.notOk('fx' in b.body.meta, 'a single-currency dataset has no meta.fx');
    }
  });

  t.test('meta.fx on the same scenarios, and the currency breakdown adds up to ES', async (t) => {
    for (const method of ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal']) {
      const r = await calculate(
        s.base,
        s.key,
        calcOf(ds, {
          method,
          simulations: 20_000,
          method_options: method.startsWith('monte') ? { seed: 9 } : {},
          positions: [
            { symbol: 'SAP', quantity: 100 },
            { symbol: 'AAPL', quantity: -30 },
            { cash: 'GBP', amount: 1e4 },
          ],
        }),
      );
      t.equal(r.status, 200, ok(r));
      const m = r.body.meta as Meta;
      t.equal(m.fx.fx_effect_var, m.metrics.value_at_risk - m.fx.var_without_fx, `${method}: the effect is the difference`);
      t.ok(Number.isFinite(m.fx.fx_effect_es_standard_error));
      const total = (m.currency_breakdown as Meta[]).reduce((a, row) => a + row.component_es, 0);
      t.ok(Math.abs(total - m.metrics.expected_shortfall) <= 1e-9 * Math.abs(m.metrics.expected_shortfall), `${method}: breakdown adds up`);
      t.same(
        (m.currency_breakdown as Meta[]).map((row) => row.currency),
        ['EUR', 'GBP', 'USD'],
      );
    }
  });

  t.test('batch books over a multi-currency dataset: each with its currency breakdown, from its own rows', async (t) => {
    const books = [
      {
        id: 'eur-long',
        positions: [
          { symbol: 'SAP', quantity: 100 },
          { cash: 'GBP', amount: 1e4 },
        ],
      },
      {
        id: 'mixed',
        positions: [
          { symbol: 'AAPL', quantity: -30 },
          { symbol: 'BARC', quantity: 500 },
          { cash: 'EUR', amount: -2e4 },
        ],
      },
    ];
    const currencyOf: Record<string, string> = { SAP: 'EUR', BARC: 'GBP', AAPL: 'USD', '@cash:GBP': 'GBP', '@cash:EUR': 'EUR' };
    for (const method of ['monte_carlo_normal', 'historical', 'parametric_normal']) {
      const json = calcOf(ds, { method, simulations: 10_000, method_options: method.startsWith('monte') ? { seed: 9 } : {}, books });
      const r = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', { key: s.key, json });
      t.equal(r.status, 200, ok(r));
      for (const book of r.body.meta.books as Meta[]) {
        const want = new Map<string, { currency: string; gross: number; net: number; component_es: number }>();
        for (const c of book.contributions as Meta[]) {
          const currency = currencyOf[c.symbol as string]!;
          const row = want.get(currency) ?? { currency, gross: 0, net: 0, component_es: 0 };
          row.gross += Math.abs(c.exposure);
          row.net += c.exposure;
          row.component_es += c.component_es;
          want.set(currency, row);
        }
        const rows = [...want.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
        t.same(book.currency_breakdown, rows, `${method} ${book.id as string}: by currency, from its rows`);
        const total = rows.reduce((a, x) => a + x.component_es, 0);
        t.ok(Math.abs(total - book.metrics.expected_shortfall) <= 1e-9 * book.metrics.expected_shortfall, `${method} ${book.id as string}: adds up to ES`);
      }
    }
    const single = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(csv) });
    const json = calcOf(single.body.dataset_id as string, { books: [{ id: 'a', positions: [{ symbol: 'AAPL', quantity: 10 }] }] });
    const plain = await call(s.base, 'POST', '/api/v1/risk/calculate/batch', { key: s.key, json });
    t.equal(plain.status, 200, ok(plain));
    t.notOk('currency_breakdown' in plain.body.meta.books[0], 'a single-currency dataset states none');
  });

  t.test('parametric oracle of §14: 1,471,312 / 367,828 / 1,620,114', async (t) => {
    // x1 = R + F of a EUR stock (σ 2 %), x2 a USD stock (σ 1 %), ρ 0.3, exactly, over 500 returns;
    // EURUSD moves independently (σ 0.6 %), so the stock's own return is x1 − f.
    const [u1, u2, u3] = orthonormalReturns(500, 3, 5) as [number[], number[], number[]];
    const x1 = u1.map((u) => 0.02 * u);
    const x2 = u1.map((u, i) => 0.01 * (0.3 * u + Math.sqrt(1 - 0.09) * u2[i]!));
    const f = u3.map((u) => 0.006 * u);
    const oracle = wideCsv(
      {
        EUSTK: pricesFrom(
          100,
          x1.map((x, i) => x - f[i]!),
        ),
        USSTK: pricesFrom(50, x2),
        EURUSD: pricesFrom(1.1, f),
      },
      (p) => p.toPrecision(17),
    );
    const up = await uploadWith(s.base, s.key, oracle, { currencies: JSON.stringify({ EUSTK: 'EUR' }), base_currency: 'USD' });
    t.equal(up.status, 200, ok(up));
    const body = (positions: Body[]) =>
      calcOf(up.body.dataset_id as string, { method: 'parametric_normal', time_horizon: 10, method_options: { drift: 'zero' }, positions });
    const one = await calculate(s.base, s.key, body([{ symbol: 'EUSTK', market_value: 10e6 }]));
    const two = await calculate(s.base, s.key, body([{ symbol: 'USSTK', market_value: 5e6 }]));
    const both = await calculate(
      s.base,
      s.key,
      body([
        { symbol: 'EUSTK', market_value: 10e6 },
        { symbol: 'USSTK', market_value: 5e6 },
      ]),
    );
    t.equal(Math.round(one.body.meta.metrics.value_at_risk), 1_471_312, ok(one));
    t.equal(Math.round(two.body.meta.metrics.value_at_risk), 367_828);
    t.equal(Math.round(both.body.meta.metrics.value_at_risk), 1_620_114);
  });

  t.test('without FX: the book on its local returns (historical, recomputed from the CSV)', async (t) => {
    const book = [
      { symbol: 'SAP', quantity: 100 },
      { symbol: 'AAPL', quantity: -30 },
      { cash: 'GBP', amount: 1e4 },
    ];
    const r = await calculate(s.base, s.key, calcOf(ds, { positions: book }));
    t.equal(r.status, 200, ok(r));
    const m = r.body.meta as Meta;
    const exposure = Object.fromEntries((m.exposures.items as Meta[]).map((i) => [i.symbol, i.exposure as number]));
    const rows = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').map(Number));
    // SAP column 1 and AAPL column 3 on their own returns; the cash does not move without FX.
    const pnl = rows
      .slice(1)
      .map((row, i) => exposure.SAP! * Math.expm1(Math.log(row[1]! / rows[i]![1]!)) + exposure.AAPL! * Math.expm1(Math.log(row[3]! / rows[i]![3]!)))
      .sort((a, b) => a - b);
    const k = Math.ceil(0.01 * pnl.length);
    const expected = -pnl[k - 1]!;
    t.ok(Math.abs(m.fx.var_without_fx - expected) <= 1e-9 * expected, `var_without_fx ${m.fx.var_without_fx} vs ${expected}`);
    const es = -pnl.slice(0, k).reduce((a, b) => a + b, 0) / k;
    t.ok(Math.abs(m.fx.es_without_fx - es) <= 1e-9 * es, `es_without_fx ${m.fx.es_without_fx} vs ${es}`);
  });

  t.test('a what-if on a foreign book: the book’s figures and meta.fx are the plain calculation’s, to the bit', async (t) => {
    for (const method of ['monte_carlo_normal', 'historical']) {
      const book = calcOf(ds, {
        method,
        simulations: 20_000,
        method_options: method.startsWith('monte') ? { seed: 4, target_relative_error: 0.05 } : {},
        positions: [
          { symbol: 'SAP', quantity: 100 },
          { cash: 'JPY', amount: 1e6 },
        ],
      });
      // The trade's symbol is one of the scenarios' factors (api.md §13): the plain book names it at 0.
      const plain = await calculate(s.base, s.key, { ...book, positions: [...(book.positions as Body[]), { symbol: 'BARC', quantity: 0 }] });
      const whatIf = await calculate(s.base, s.key, { ...book, what_if: { trades: [{ symbol: 'BARC', quantity: 500 }] } });
      t.equal(whatIf.status, 200, ok(whatIf));
      t.same(whatIf.body.meta.metrics, plain.body.meta.metrics, `${method}: the book before the trades`);
      t.same(whatIf.body.meta.fx, plain.body.meta.fx, `${method}: its FX effect on the same scenarios`);
      t.ok(whatIf.body.meta.fx.var_without_fx > 0 && whatIf.body.meta.what_if.value_at_risk > 0);
    }
  });

  t.test('Monte Carlo draws R and F jointly: a EUR stock against the closed form of e·(e^{R+F} − 1)', async (t) => {
    // Independently from the CSV: the sample mean and variance of r + f, the T-day lognormal quantile.
    const rows = csv
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').map(Number));
    const x = rows.slice(1).map((r, i) => Math.log(r[1]! / rows[i]![1]!) + Math.log(r[4]! / rows[i]![4]!));
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / (x.length - 1);
    const T = 10;
    const last = rows[rows.length - 1]!;
    const e = 1000 * (last[1]! * last[4]!);
    const zLow = -2.3263478740408408;
    const exact = -e * Math.expm1(T * mean + Math.sqrt(T * variance) * zLow);
    for (const method of ['monte_carlo_normal']) {
      const r = await calculate(
        s.base,
        s.key,
        calcOf(ds, { method, time_horizon: T, simulations: 200_000, method_options: { seed: 17 }, positions: [{ symbol: 'SAP', quantity: 1000 }] }),
      );
      t.equal(r.status, 200, ok(r));
      const m = r.body.meta as Meta;
      t.ok(
        Math.abs(m.metrics.value_at_risk - exact) <= 4 * m.metrics.value_at_risk_standard_error,
        `${method}: VaR ${m.metrics.value_at_risk} vs exact ${exact} (SE ${m.metrics.value_at_risk_standard_error})`,
      );
      t.ok(
        m.fx.fx_effect_var_standard_error > 0 && m.fx.fx_effect_var_standard_error < m.metrics.value_at_risk_standard_error * 3,
        'the effect’s SE is of the difference',
      );
    }
  });

  t.test('more factors than instruments (cash through a cross) in every simulated method and mode', async (t) => {
    const configs: Body[] = [
      { method: 'monte_carlo_normal', method_options: { seed: 1 } },
      { method: 'monte_carlo_normal', portfolio_mode: 'rebalanced', method_options: { seed: 1, antithetic: true } },
      { method: 'monte_carlo_student_t', method_options: { seed: 1, variance_reduction: 'importance_sampling' } },
      { method: 'monte_carlo_student_t', portfolio_mode: 'rebalanced', method_options: { seed: 1 } },
      { method: 'historical', portfolio_mode: 'rebalanced' },
    ];
    for (const c of configs) {
      const r = await calculate(s.base, s.key, calcOf(ds, { ...c, time_horizon: 5, simulations: 10_000, positions: [{ cash: 'GBP', amount: 1e6 }] }));
      t.equal(r.status, 200, ok(r));
      t.ok(r.body.meta.metrics.value_at_risk > 0, `${JSON.stringify(c)}: GBP cash has FX risk`);
      t.equal(r.body.meta.fx.pairs[0].via, 'EUR');
    }
  });
});
