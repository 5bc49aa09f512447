// Stress scenarios over HTTP (API contract §10): an instantaneous shock revalues exactly; the worst
// window equals a brute-force search done here on the CSV; the conditional means and standard
// deviations equal an independent solve of the normal model estimated here; named windows are
// covered only where the data reaches them; every error row. The stress bucket is in
// rate-limits.test.ts, with every limited endpoint's.
import t from 'tap';
import { call, refusals, upload, uploadFile } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { completeRows } from '../helpers/price-series.js';

const STRESS = '/api/v1/risk/stress';
type Body = Record<string, unknown>;

/** Prices of `symbols` on the sample's dates where all of them have one. */
const complete = (symbols: string[]) => completeRows(WIDE_SAMPLE, symbols);

/** Plain Gauss–Jordan solve of A x = b (an independent check, not the service's Cholesky). */
function gaussSolve(a: number[][], b: number[]): number[] {
  const m = a.map((row, i) => [...row, b[i]!]);
  const n = m.length;
  for (let c = 0; c < n; c++) {
    const p = m.reduce((best, _, r) => (r >= c && Math.abs(m[r]![c]!) > Math.abs(m[best]![c]!) ? r : best), c);
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

t.test('stress', async (t) => {
  const s = await startTestService({ RATE_LIMIT_STRESS_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  const id = up.body.dataset_id as string;
  const post = (json: Body) => call(s.base, 'POST', STRESS, { key: s.key, json });
  const body = (over: Body) => ({ dataset_id: id, currency: 'USD', positions: [{ symbol: 'AAPL', quantity: 1000 }], ...over });

  t.test('a −20 % shock to a one-symbol book loses exactly 20 % of its exposure', async (t) => {
    const r = await post(body({ scenarios: [{ type: 'shock', shocks: { AAPL: -0.2 } }] }));
    t.equal(r.status, 200, r.text);
    const exposure = r.body.meta.exposures.items[0].exposure as number;
    const res = r.body.meta.results[0];
    t.equal(res.pnl, exposure * -0.2, 'P&L = −0.2 × exposure, exactly');
    t.equal(res.pnl_pct, -0.2, 'capital = gross = the exposure');
    t.same(res.items, [{ symbol: 'AAPL', return: -0.2, pnl: exposure * -0.2 }]);
    t.equal(r.body.meta.as_of, '2020-01-10');
  });

  t.test('the worst window equals a brute-force search over the data', async (t) => {
    const positions = [
      { symbol: 'AAPL', quantity: 2000 },
      { symbol: 'XOM', market_value: -400_000 },
      { symbol: 'KHC', quantity: 3000 },
    ];
    for (const horizon of [1, 5, 20]) {
      const r = await post(body({ positions, scenarios: [{ type: 'historical_worst', horizon }] }));
      t.equal(r.status, 200, r.text);
      const exposures = (r.body.meta.exposures.items as { exposure: number }[]).map((i) => i.exposure);
      const h = complete(positions.map((p) => p.symbol));
      let worst = { pnl: Infinity, from: -1 };
      for (let from = 0; from + horizon < h.prices.length; from++) {
        const pnl = exposures.reduce((acc, e, i) => acc + e * (h.prices[from + horizon]![i]! / h.prices[from]![i]! - 1), 0);
        if (pnl < worst.pnl) worst = { pnl, from };
      }
      const res = r.body.meta.results[0];
      t.equal(res.start, h.dates[worst.from], `T = ${horizon}: start`);
      t.equal(res.end, h.dates[worst.from + horizon], `T = ${horizon}: end`);
      t.ok(Math.abs(res.pnl - worst.pnl) <= 1e-9 * Math.abs(worst.pnl), `T = ${horizon}: P&L ${res.pnl} vs ${worst.pnl}`);
      t.ok(res.pnl < 0);
    }
  });

  t.test('conditional means and standard deviations equal an independent solve', async (t) => {
    const book = ['AAPL', 'MSFT', 'JPM', 'KO'];
    const shocks = { AAPL: -0.15, XOM: 0.05 };
    const horizon = 10;
    const positions = book.map((symbol) => ({ symbol, market_value: 250_000 }));
    const r = await post(body({ positions, scenarios: [{ type: 'conditional', shocks, horizon }] }));
    t.equal(r.status, 200, r.text);
    // The model's symbols: the book's, then the shocked ones it lacks; its dates: all have prices.
    const symbols = [...book, 'XOM'];
    const h = complete(symbols);
    const returns = h.prices.slice(1).map((p, d) => p.map((x, i) => Math.log(x / h.prices[d]![i]!)));
    const n = symbols.length;
    const mean = symbols.map((_, i) => returns.reduce((a, r) => a + r[i]!, 0) / returns.length);
    const cov = symbols.map((_, i) => symbols.map((_, j) => returns.reduce((a, r) => a + (r[i]! - mean[i]!) * (r[j]! - mean[j]!), 0) / (returns.length - 1)));
    const s = [0, n - 1]; // AAPL, XOM
    const x = [Math.log1p(shocks.AAPL) - horizon * mean[0]!, Math.log1p(shocks.XOM) - horizon * mean[n - 1]!];
    const sss = s.map((a) => s.map((b) => cov[a]![b]!));
    const alpha = gaussSolve(sss, x);
    const items = r.body.meta.results[0].items as { symbol: string; return: number; conditional_sd: number }[];
    t.equal(items[0]!.return, -0.15, 'a shocked symbol keeps its shock');
    t.equal(items[0]!.conditional_sd, 0);
    for (const o of [1, 2, 3]) {
      const cross = s.map((k) => cov[o]![k]!);
      const condMean = horizon * mean[o]! + cross[0]! * alpha[0]! + cross[1]! * alpha[1]!;
      const w = gaussSolve(sss, cross);
      const sd = Math.sqrt(horizon * (cov[o]![o]! - cross[0]! * w[0]! - cross[1]! * w[1]!));
      t.ok(Math.abs(Math.log1p(items[o]!.return) - condMean) < 1e-12, `${symbols[o]}: conditional mean`);
      t.ok(Math.abs(items[o]!.conditional_sd / sd - 1) < 1e-9, `${symbols[o]}: conditional sd`);
    }
  });

  t.test('dated and named windows: covered only where the data reaches', async (t) => {
    const names = ['gfc_2008', 'euro_2011', 'china_2015', 'volmageddon_2018', 'q4_2018', 'covid_2020'];
    const r = await post(
      body({ scenarios: [...names.map((name) => ({ type: 'named', name })), { type: 'historical_window', start: '2018-10-01', end: '2018-12-24' }] }),
    );
    t.equal(r.status, 200, r.text);
    const covered = (r.body.meta.results as { covered: boolean }[]).map((x) => x.covered);
    t.same(covered, [false, false, true, true, true, false, true], 'the sample runs 2015-01-12 to 2020-01-10');
    const q4 = r.body.meta.results[6];
    const h = complete(['AAPL']);
    const from = h.dates.filter((d) => d <= '2018-10-01').length - 1;
    const to = h.dates.filter((d) => d <= '2018-12-24').length - 1;
    t.same([q4.start, q4.end], [h.dates[from], h.dates[to]]);
    t.equal(q4.items[0].return, h.prices[to]![0]! / h.prices[from]![0]! - 1);
    t.same(r.body.meta.results[0].items, [{ symbol: 'AAPL', return: 0, pnl: 0 }], 'an uncovered window has no figures');
  });

  t.test('every error row', async (t) => {
    const refused = refusals(t, post);
    await refused(body({ scenarios: [] }), 422, 'VALIDATION_ERROR', ['body', 'scenarios']);
    await refused(body({ scenarios: Array(51).fill({ type: 'shock', shocks: { AAPL: -0.1 } }) }), 422, 'VALIDATION_ERROR', ['body', 'scenarios']);
    await refused(body({ scenarios: [{ type: 'historical_window', start: '2019-01-01', end: '2018-01-01' }] }), 422, 'VALIDATION_ERROR', [
      'body',
      'scenarios',
      0,
      'end',
    ]);
    await refused(body({ scenarios: [{ type: 'shock', shocks: { NOPE: -0.1 } }] }), 422, 'UNKNOWN_SYMBOL', ['body', 'scenarios', 0, 'shocks', 'NOPE']);
    await refused(body({ scenarios: [{ type: 'conditional', shocks: { AAPL: -1 }, horizon: 1 }] }), 422, 'VALIDATION_ERROR');
    await refused(body({ scenarios: [{ type: 'shock', shocks: { AAPL: -1.5 } }] }), 422, 'VALIDATION_ERROR');
    await refused(body({ scenarios: [{ type: 'named', name: 'dotcom_2000' }] }), 422, 'VALIDATION_ERROR');
    await refused(body({ scenarios: [{ type: 'historical_worst', horizon: 0 }] }), 422, 'VALIDATION_ERROR');
    await refused(body({ positions: undefined, scenarios: [{ type: 'shock', shocks: { AAPL: -0.1 } }] }), 422, 'VALIDATION_ERROR', ['body']);
    await refused(
      body({ portfolio: [{ symbol: 'AAPL', weight: 1 }], positions: undefined, scenarios: [{ type: 'historical_worst', horizon: 5 }] }),
      422,
      'VALIDATION_ERROR',
      ['body', 'portfolio_value'],
    );
    await refused(body({ dataset_id: 'ds_nope', scenarios: [{ type: 'historical_worst', horizon: 5 }] }), 404, 'DATASET_NOT_FOUND');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`S${i}`, -0.1]));
    await refused(body({ scenarios: [{ type: 'conditional', shocks: many, horizon: 1 }] }), 422, 'VALIDATION_ERROR');
    const noKey = await call(s.base, 'POST', STRESS, { json: body({ scenarios: [] }) });
    t.equal(noKey.status, 401, 'auth before validation');
  });

  t.test('a worst window longer than the data is not covered', async (t) => {
    const short = await upload(s.base, s.key, syntheticCsv(['A', 'B'], 60));
    const scenarios = [
      { type: 'historical_worst', horizon: 59 },
      { type: 'historical_worst', horizon: 60 },
    ];
    const r = await post(body({ dataset_id: short.body.dataset_id, positions: [{ symbol: 'A', quantity: 1 }], scenarios }));
    t.equal(r.status, 200, r.text);
    t.same(
      (r.body.meta.results as { covered: boolean }[]).map((x) => x.covered),
      [true, false],
    );
  });
});
