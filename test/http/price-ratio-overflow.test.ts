// A dataset whose prices are each a finite positive double but whose ratio between two dates is not
// (1e-10 then 1e300: a log return of +∞) is refused at estimation as an overflow (422), on every
// route that estimates a model and over a live subscription; it was an infinite return passed to the
// covariance factoring, whose failure came back as a 500.
import t from 'tap';
import { calcBody, calculate, call, csvForm } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { walk, wideCsv } from '../helpers/price-series.js';
import { LiveClient } from '../helpers/live-client.js';

const DAYS = 100;
const METHODS = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'historical_filtered', 'parametric_normal', 'cornish_fisher'];

t.test('a price ratio beyond a double', async (t) => {
  const s = await startTestService({ RATE_LIMIT_CALCULATE_PER_MIN: '1000', RATE_LIMIT_BACKTEST_PER_MIN: '1000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const b = walk(DAYS, 7);
  const upload = async (a: number[]) => {
    const r = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(wideCsv({ A: a, B: b })) });
    t.equal(r.status, 200, `every price is a finite positive double: accepted (${r.text.slice(0, 200)})`);
    return r.body.dataset_id as string;
  };
  const jump = Array.from({ length: DAYS }, (_, i) => (i === 60 ? 1e300 : 1e-10));
  const id = await upload(jump);
  const book = {
    portfolio: [
      { symbol: 'A', weight: 0.5 },
      { symbol: 'B', weight: 0.5 },
    ],
  };
  const overflow = (r: { status: number; text: string; body: { detail?: { code?: string; errors?: { type: string; msg: string }[] } } }, what: string) => {
    t.equal(r.status, 422, `${what}: ${r.text.slice(0, 200)}`);
    t.equal(r.body.detail?.code, 'VALIDATION_ERROR', `${what}: the contract's code`);
    t.equal(r.body.detail?.errors?.[0]?.type, 'overflow', `${what}: an overflow`);
    t.match(r.body.detail?.errors?.[0]?.msg ?? '', /ratio beyond double precision between two dates \(from 1e-10 to 1e300\)/, `${what}: says which prices`);
  };
  for (const method of METHODS) {
    overflow(await calculate(s.base, s.key, calcBody(id, { ...book, method, method_options: {}, time_horizon: 1, simulations: 2000 })), method);
  }
  const backtest = await call(s.base, 'POST', '/api/v1/risk/backtest', {
    key: s.key,
    json: {
      dataset_id: id,
      currency: 'USD',
      method: 'historical',
      confidence_level: 0.99,
      time_horizon: 1,
      portfolio_value: 1e6,
      ...book,
      backtest: { window: 50, estimation_window: 30 },
    },
  });
  overflow(backtest, 'backtest');

  const live = await LiveClient.open(s.base, s.key);
  t.teardown(() => live.close());
  live.send({ type: 'subscribe', id: 'x', request: calcBody(id, { ...book, simulations: 2000 }) });
  const e = await live.next((m) => m.type === 'error');
  t.equal(e.detail.code, 'VALIDATION_ERROR', 'a live subscription is refused with the same error, not INTERNAL_ERROR');

  // The largest jump that fits (×1e300 from 1e-10 to 1e290) is estimated: any refusal is of its figures, never a 500.
  const fits = await upload(Array.from({ length: DAYS }, (_, i) => (i >= 60 ? 1e290 : 1e-10)));
  const r = await calculate(s.base, s.key, calcBody(fits, { ...book, method: 'historical', method_options: {}, time_horizon: 1 }));
  t.ok(r.status === 200 || r.status === 422, `a ratio that fits: ${r.status} ${r.text.slice(0, 200)}`);
});
