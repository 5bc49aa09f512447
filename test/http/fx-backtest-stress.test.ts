// Multi-currency books in backtests and stress (API contract §14, §9, §10) through the real server:
// each prices the book's series in the reporting currency date by date, so a foreign book backtests
// and replays history exactly as a single-currency dataset holding those converted series, cash
// exactly as its FX column held as a position; a shock on an FX column moves every position
// converted through it.
import t from 'tap';
import { call, csvForm, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { gaussian, iso } from '../helpers/price-series.js';
import { mulberry32 } from '../helpers/mulberry32.js';

type Body = Record<string, unknown>;

const ok = (r: Reply) => (r.status === 200 ? 'ok' : r.text.slice(0, 400));

/** A wide CSV with every value written so that it reads back to the same double. */
function exactCsv(columns: Record<string, number[]>): string {
  const names = Object.keys(columns);
  const rows = columns[names[0]!]!.length;
  const lines = [['date', ...names].join(',')];
  for (let i = 0; i < rows; i++) lines.push([iso(i), ...names.map((s) => String(columns[s]![i]))].join(','));
  return lines.join('\n') + '\n';
}

function walk(rand: () => number, n: number, start: number, vol: number): number[] {
  const out = [start];
  while (out.length < n) out.push(Number((out[out.length - 1]! * Math.exp(vol * gaussian(rand))).toPrecision(10)));
  return out;
}

/** The response without what differs between two equal calculations (ids, timings). */
const figures = (b: Body) => JSON.stringify(b, (k, v: unknown) => (k === 'calculation_id' || k === 'timing_ms' || k === 'dataset_id' ? undefined : v));

t.test('multi-currency backtest and stress', async (t) => {
  const s = await startTestService({ RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_STRESS_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const rand = mulberry32(23);
  const n = 400;
  const raw = { SAP: walk(rand, n, 120, 0.015), AAPL: walk(rand, n, 180, 0.018), EURUSD: walk(rand, n, 1.1, 0.006), USDJPY: walk(rand, n, 150, 0.006) };
  const upload = async (csv: string, fields: Record<string, string> = {}) => {
    const form = csvForm(csv);
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const r = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: form });
    t.equal(r.status, 200, ok(r));
    return r.body.dataset_id as string;
  };
  const multi = await upload(exactCsv(raw), { currencies: JSON.stringify({ SAP: 'EUR' }), base_currency: 'USD' });
  // The same series converted here into USD: SAP × EURUSD, date by date, as the service must.
  const converted = await upload(exactCsv({ SAP: raw.SAP.map((p, i) => p * raw.EURUSD[i]!), AAPL: raw.AAPL, EURUSD: raw.EURUSD }));
  const post = (path: string, json: Body) => call(s.base, 'POST', path, { key: s.key, json });

  t.test('a foreign book backtests as its converted series; cash as its FX column', async (t) => {
    const base = (ds: string, positions: Body[]): Body => ({
      dataset_id: ds,
      currency: 'USD',
      confidence_level: 0.99,
      time_horizon: 1,
      positions,
      backtest: { window: 100, estimation_window: 250 },
    });
    for (const method of ['parametric_normal', 'historical', 'monte_carlo_normal']) {
      const extra = method === 'monte_carlo_normal' ? { simulations: 2_000, method_options: { seed: 5 } } : {};
      const book = [
        { symbol: 'SAP', quantity: 100 },
        { symbol: 'AAPL', quantity: -20 },
      ];
      const a = await post('/api/v1/risk/backtest', { ...base(multi, book), method, ...extra });
      const b = await post('/api/v1/risk/backtest', { ...base(converted, book), method, ...extra });
      t.equal(a.status, 200, ok(a));
      t.equal(figures(a.body), figures(b.body), `${method}: the same backtest, to the bit`);
      const cash = await post('/api/v1/risk/backtest', { ...base(multi, [{ cash: 'EUR', amount: 1e6 }]), method, ...extra });
      const column = await post('/api/v1/risk/backtest', { ...base(converted, [{ symbol: 'EURUSD', quantity: 1e6 }]), method, ...extra });
      t.equal(cash.status, 200, ok(cash));
      t.same(cash.body.meta.series, column.body.meta.series, `${method}: EUR cash is EURUSD held`);
    }
  });

  t.test('stress: history replays the converted series; FX shocks move the positions converted through them', async (t) => {
    const book = [
      { symbol: 'SAP', quantity: 100 },
      { symbol: 'AAPL', quantity: 10 },
    ];
    const body = (ds: string, scenarios: Body[], positions: Body[] = book): Body => ({ dataset_id: ds, currency: 'USD', positions, scenarios });
    const windows = [
      { type: 'historical_worst', horizon: 5 },
      { type: 'historical_window', start: iso(100), end: iso(150) },
    ];
    const a = await post('/api/v1/risk/stress', body(multi, windows));
    const b = await post('/api/v1/risk/stress', body(converted, windows));
    t.equal(a.status, 200, ok(a));
    t.equal(figures(a.body), figures(b.body), 'historical scenarios: the same figures');
    const shock = await post(
      '/api/v1/risk/stress',
      body(multi, [{ type: 'shock', shocks: { EURUSD: -0.1, USDJPY: 0.1 } }], [...book, { cash: 'JPY', amount: 1e7 }]),
    );
    t.equal(shock.status, 200, ok(shock));
    const items = Object.fromEntries((shock.body.meta.results[0].items as { symbol: string; pnl: number; return: number }[]).map((i) => [i.symbol, i]));
    const exposures = Object.fromEntries((shock.body.meta.exposures.items as { symbol: string; exposure: number }[]).map((i) => [i.symbol, i.exposure]));
    t.equal(items.SAP!.return, -0.1, 'SAP in USD moves with EURUSD');
    t.equal(items.AAPL?.return ?? 0, 0, 'AAPL is not converted');
    t.equal(items['@cash:JPY']!.return, 1 / 1.1 - 1, 'yen cash moves with the inverse of USDJPY');
    t.equal(items.SAP!.pnl, exposures.SAP! * -0.1);
  });
});
