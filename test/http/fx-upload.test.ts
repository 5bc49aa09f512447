// Multi-currency datasets (API contract §14) through the real server: the upload's currencies and
// every refusal (nothing stored), conversions by the direct pair, its inverse and a cross, and
// MISSING_FX_RATE. The figures are fx.test.ts's.
import t from 'tap';
import { call, calculate, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { wideCsv } from '../helpers/price-series.js';
import { calcOf, CURRENCIES, marketCsv, ok, uploadWith, type Meta } from '../helpers/fx-market.js';

t.test('multi-currency datasets', async (t) => {
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
});
