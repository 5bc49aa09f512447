// Multi-currency books (API contract §14) through the real server: the upload's currencies and its
// refusals, conversions by the direct pair, its inverse and a cross, cash, MISSING_FX_RATE, the
// identities (a single-currency book gives today's figures to the bit), the parametric oracle of
// §14 through a dataset whose R + F has exactly its moments, and meta.fx / currency_breakdown.
import t from 'tap';
import { call, calculate, csvForm, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { gaussian, wideCsv } from '../helpers/price-series.js';
import { mulberry32 } from '../helpers/mulberry32.js';

type Body = Record<string, unknown>;
type Meta = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ok = (r: Reply) => (r.status === 200 ? 'ok' : r.text.slice(0, 400));

function uploadWith(base: string, key: string, csv: string, fields: Record<string, string>): Promise<Reply> {
  const form = csvForm(csv);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: form });
}

/** Columns of m + 1 prices whose daily log returns have, exactly, sample covariance I (divisor m − 1). */
function orthonormalReturns(m: number, k: number, seed: number): number[][] {
  const rand = mulberry32(seed);
  const cols: number[][] = [];
  for (let j = 0; j < k; j++) {
    let v = Array.from({ length: m }, () => gaussian(rand));
    const mean = v.reduce((a, b) => a + b, 0) / m;
    v = v.map((x) => x - mean);
    for (const u of cols) {
      const dot = v.reduce((a, x, i) => a + x * u[i]!, 0) / (m - 1);
      v = v.map((x, i) => x - dot * u[i]!);
    }
    const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0) / (m - 1));
    cols.push(v.map((x) => x / norm));
  }
  return cols;
}

const pricesFrom = (start: number, returns: number[]) => returns.reduce((p, r) => [...p, p[p.length - 1]! * Math.exp(r)], [start]);

/** Multi-asset walk columns: a EUR stock, a GBP stock, a USD stock and EURUSD, GBPEUR, USDJPY. */
function marketCsv(): string {
  const rand = mulberry32(11);
  const walk = (start: number, vol: number) =>
    pricesFrom(
      start,
      Array.from({ length: 299 }, () => vol * gaussian(rand)),
    );
  return wideCsv({
    SAP: walk(120, 0.015),
    BARC: walk(2, 0.02),
    AAPL: walk(180, 0.018),
    EURUSD: walk(1.1, 0.005),
    GBPEUR: walk(1.17, 0.004),
    USDJPY: walk(150, 0.006),
  });
}

const CURRENCIES = { currencies: JSON.stringify({ SAP: 'EUR', BARC: 'GBP' }), base_currency: 'USD' };

const calcOf = (ds: string, over: Body): Body => ({
  dataset_id: ds,
  method: 'historical',
  currency: 'USD',
  confidence_level: 0.99,
  time_horizon: 1,
  ...over,
});

t.test('multi-currency books', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const csv = marketCsv();
  const up = await uploadWith(s.base, s.key, csv, CURRENCIES);
  t.equal(up.status, 200, ok(up));
  const ds = up.body.dataset_id as string;
  const summary = up.body.dataset;

  t.test('the summary lists currencies and FX pairs', async (t) => {
    const d = summary as Meta;
    t.equal(d.base_currency, 'USD');
    t.same(d.currencies, { SAP: 'EUR', BARC: 'GBP', AAPL: 'USD' });
    t.same(d.fx_pairs, ['EURUSD', 'GBPEUR', 'USDJPY']);
  });

  t.test('upload refusals name their field or line, and store nothing', async (t) => {
    const cases: [Record<string, string>, string, unknown[]][] = [
      [{ currencies: JSON.stringify({ SAP: 'EUX' }), base_currency: 'USD' }, 'VALIDATION_ERROR', ['body', 'currencies', 'SAP']],
      [{ currencies: JSON.stringify({ NOPE: 'EUR' }), base_currency: 'USD' }, 'VALIDATION_ERROR', ['body', 'currencies', 'NOPE']],
      [{ currencies: '{not json', base_currency: 'USD' }, 'VALIDATION_ERROR', ['body', 'currencies']],
      [{ base_currency: 'XXY' }, 'VALIDATION_ERROR', ['body', 'base_currency']],
      [{ currencies: JSON.stringify({ SAP: 'EUR' }) }, 'VALIDATION_ERROR', ['body', 'base_currency']],
    ];
    const before = await call(s.base, 'GET', '/api/v1/risk/datasets', { key: s.key });
    for (const [fields, code, loc] of cases) {
      const r = await uploadWith(s.base, s.key, csv, fields);
      t.equal(r.status, 422, JSON.stringify(fields));
      t.equal(r.body.detail.code, code);
      t.same(r.body.detail.errors[0].loc, loc, JSON.stringify(fields));
    }
    // A pair and its inverse that disagree beyond 1e-6: refused with the date and line.
    const rates = [1.1, 1.2, 1.3];
    const bad = wideCsv({ SAP: [100, 101, 102], EURUSD: rates, USDEUR: [1 / 1.1, 1 / 1.2, (1 / 1.3) * (1 + 2e-6)] });
    const r = await uploadWith(s.base, s.key, bad, { base_currency: 'EUR' });
    t.equal(r.status, 422);
    t.equal(r.body.detail.code, 'INVALID_CSV');
    t.equal(r.body.detail.reason, 'INCONSISTENT_FX');
    t.equal(r.body.detail.line, 4);
    const consistent = wideCsv({ SAP: [100, 101, 102], EURUSD: rates, USDEUR: rates.map((x) => 1 / x) });
    t.equal((await uploadWith(s.base, s.key, consistent, { base_currency: 'EUR' })).status, 200, 'inverse within 1e-6 is accepted');
    // Non-positive FX rates are refused like any price.
    const negative = await uploadWith(s.base, s.key, wideCsv({ SAP: [100, 101, 102], EURUSD: [1.1, -1.2, 1.3] }), { base_currency: 'EUR' });
    t.equal(negative.body.detail.code, 'INVALID_CSV');
    const after = await call(s.base, 'GET', '/api/v1/risk/datasets', { key: s.key });
    t.equal((after.body.datasets as unknown[]).length, (before.body.datasets as unknown[]).length + 1, 'only the consistent file was stored');
  });

  t.test('exposures convert by the direct pair, its inverse or a cross', async (t) => {
    const rows = csv.trim().split('\n');
    const last = rows[rows.length - 1]!.split(',').slice(1).map(Number);
    const [sap, barc, , eurusd, gbpeur, usdjpy] = last as [number, number, number, number, number, number];
    const r = await calculate(
      s.base,
      s.key,
      calcOf(ds, {
        positions: [
          { symbol: 'SAP', quantity: 100 },
          { symbol: 'BARC', quantity: 1000 },
          { cash: 'JPY', amount: 1e6 },
        ],
      }),
    );
    t.equal(r.status, 200, ok(r));
    const items = Object.fromEntries((r.body.meta.exposures.items as Meta[]).map((i) => [i.symbol, i.exposure]));
    t.equal(items.SAP, 100 * (sap * eurusd), 'EUR → USD by EURUSD');
    t.equal(items.BARC, 1000 * (barc * (gbpeur * eurusd)), 'GBP → USD through EUR: GBPEUR then EURUSD');
    t.equal(items['@cash:JPY'], 1e6 * (1 / usdjpy), 'JPY → USD by the inverse USDJPY');
    const pairs = Object.fromEntries((r.body.meta.fx.pairs as Meta[]).map((p) => [p.pair, p]));
    t.same(pairs.GBPUSD, { pair: 'GBPUSD', columns: ['GBPEUR', 'EURUSD'], inverted: false, via: 'EUR', last_rate: gbpeur * eurusd });
    t.same(pairs.JPYUSD, { pair: 'JPYUSD', columns: ['USDJPY'], inverted: true, via: null, last_rate: 1 / usdjpy });
    // Reported in EUR instead: SAP needs no conversion, AAPL goes by the inverse of EURUSD.
    const eur = await calculate(
      s.base,
      s.key,
      calcOf(ds, {
        currency: 'EUR',
        positions: [
          { symbol: 'SAP', quantity: 100 },
          { symbol: 'AAPL', quantity: 10 },
        ],
      }),
    );
    t.equal(eur.status, 200, ok(eur));
    const e = Object.fromEntries((eur.body.meta.exposures.items as Meta[]).map((i) => [i.symbol, i.exposure]));
    t.equal(e.SAP, 100 * sap);
    t.equal(e.AAPL, 10 * (last[2]! * (1 / eurusd)));
  });

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

  t.test('MISSING_FX_RATE names the pair; cash needs currencies', async (t) => {
    const r = await calculate(s.base, s.key, calcOf(ds, { currency: 'CHF', positions: [{ symbol: 'SAP', quantity: 1 }] }));
    t.equal(r.status, 422);
    t.equal(r.body.detail.code, 'MISSING_FX_RATE');
    t.equal(r.body.detail.pair, 'EURCHF');
    const plain = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(csv) });
    const c = await calculate(s.base, s.key, calcOf(plain.body.dataset_id as string, { positions: [{ cash: 'EUR', amount: 1 }] }));
    t.equal(c.status, 422);
    t.equal(c.body.detail.code, 'VALIDATION_ERROR');
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
