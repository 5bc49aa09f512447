// A maximum-size stress request (a book of MAX_BOOK_ITEMS symbols, MAX_STRESS_SCENARIOS conditional
// scenarios of MAX_CONDITIONAL_SHOCKS shocks each, worst windows) is solved in an engine worker: while
// its task is held in flight, /healthz, /readyz and another owner's calculation are answered — an
// ordering, not a timing. A repeated scenario answers as its first listing (solved once), and the
// stress is admitted by its estimated work: beyond its deadline it is refused at once (503).
import t from 'tap';
import { MAX_CONDITIONAL_SHOCKS, MAX_STRESS_SCENARIOS } from '../../src/contract/stress-schemas.js';
import { MAX_BOOK_ITEMS } from '../../src/contract/schemas.js';
import { call, upload } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
import { startTestService } from '../helpers/service.js';
import { engineHold } from '../helpers/engine-hold.js';

const STRESS = '/api/v1/risk/stress';
const symbols = Array.from({ length: MAX_BOOK_ITEMS }, (_, i) => `S${i}`);

/** Scenario k shocks MAX_CONDITIONAL_SHOCKS symbols from S(k·7) on, each its own size. */
function conditional(k: number, horizon = 10): { type: 'conditional'; shocks: Record<string, number>; horizon: number } {
  const shocks: Record<string, number> = {};
  for (let j = 0; j < MAX_CONDITIONAL_SHOCKS; j++) shocks[symbols[(k * 7 + j * 13) % symbols.length]!] = -0.01 * (1 + ((k + j) % 9));
  return { type: 'conditional', shocks, horizon };
}

t.test('stress runs in a worker under admission', async (t) => {
  const hold = engineHold();
  const s = await startTestService({ WORKERS: '1', RATE_LIMIT_STRESS_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const up = await upload(s.base, s.key, syntheticCsv(symbols, 60));
  t.equal(up.status, 200, 'uploaded');
  const id = up.body.dataset_id as string;
  const portfolio = symbols.map((symbol) => ({ symbol, weight: 1 / symbols.length }));
  // The last conditional scenario repeats the first with its shocks listed the other way round.
  const repeated = conditional(0);
  const reversed = { ...repeated, shocks: Object.fromEntries(Object.entries(repeated.shocks).reverse()) };
  const scenarios = [
    ...Array.from({ length: MAX_STRESS_SCENARIOS - 3 }, (_, k) => conditional(k)),
    reversed,
    { type: 'historical_worst', horizon: 5 },
    { type: 'historical_worst', horizon: 20 },
  ];
  const body = { dataset_id: id, currency: 'USD', portfolio, portfolio_value: 1e8, scenarios };
  const post = (json: unknown) => call(s.base, 'POST', STRESS, { key: s.key, json });

  // The model is estimated first (its own engine task), so that the task held next is the solve.
  const first = await post(body);
  t.equal(first.status, 200, 'answered');

  hold.arm();
  let answered = false;
  const held = post(body).then((r) => {
    answered = true;
    return r;
  });
  await hold.held('the stress task to be held in its worker');
  const health = await call(s.base, 'GET', '/healthz');
  t.equal(health.status, 200, '/healthz answered while the stress is in flight');
  t.equal((await call(s.base, 'GET', '/readyz')).status, 200, '/readyz too');
  t.equal(answered, false, 'the stress was still in flight when the probes were answered');
  hold.release();
  const second = await held;
  t.equal(second.status, 200, 'answered once released');
  t.same(second.body.meta.results, first.body.meta.results, 'the same answer, held or not');

  const results = first.body.meta.results as { pnl: number; items: { conditional_sd?: number }[] }[];
  t.same(results[MAX_STRESS_SCENARIOS - 3]!.items, results[0]!.items, 'a repeated scenario answers as its first listing');
  t.ok(
    results.every((r) => Number.isFinite(r.pnl)),
    'every scenario answered with a finite P&L',
  );
  t.ok(
    results.slice(0, MAX_STRESS_SCENARIOS - 2).every((r) => r.items.some((i) => (i.conditional_sd ?? 0) > 0)),
    'conditional scenarios report deviations',
  );
});

t.test('a stress whose estimated work is beyond its deadline is refused at once', async (t) => {
  const s = await startTestService({ WORKERS: '1', RATE_LIMIT_STRESS_PER_MIN: '1000', CALC_TIMEOUT_MS: '1' });
  t.teardown(() => s.stop());
  const up = await upload(s.base, s.key, syntheticCsv(symbols, 60));
  const id = up.body.dataset_id as string;
  const portfolio = symbols.map((symbol) => ({ symbol, weight: 1 / symbols.length }));
  const scenarios = Array.from({ length: MAX_STRESS_SCENARIOS }, (_, k) => conditional(k));
  const refused = await call(s.base, 'POST', STRESS, { key: s.key, json: { dataset_id: id, currency: 'USD', portfolio, portfolio_value: 1e6, scenarios } });
  t.equal(refused.status, 503, JSON.stringify(refused.body).slice(0, 300));
  t.equal(refused.body.detail.code, 'CALCULATION_TIMEOUT');
  t.ok(refused.body.detail.estimated_ms > 1, `refused by admission on its own estimate (${refused.body.detail.estimated_ms} ms), before any work`);
});
