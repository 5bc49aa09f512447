// Admission counts memory (review M6): while one calculation that holds most of ADMISSION_MEMORY_MB
// is in flight (held in its worker by the test-only "hold" fault: an ordering, not a timing),
// another that needs memory is refused at once with 503 SERVER_BUSY and a Retry-After, while the
// closed form, which holds none, is still admitted; once the first finishes, the refused one runs.
// An option book counts the kept scenarios it holds (the drawn units; its option columns are
// priced block by block, never held) beside its P&L: it was once admitted as if it held none.
import t from 'tap';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { engineHold } from '../helpers/engine-hold.js';
import { waitFor } from '../helpers/wait.js';

t.test('admission bounds the memory the admitted calculations hold together', async (t) => {
  const hold = engineHold();
  // 200,000 scenarios of 3 assets at 99 %: 8 × (200,000 + 2,000 × 8) B ≈ 1.7 MB each against 2 MiB.
  const s = await startTestService({ WORKERS: '1', ADMISSION_MEMORY_MB: '2', RATE_LIMIT_CALCULATE_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const big = calcBody(ds, { simulations: 200_000 });
  const warm = await calculate(s.base, s.key, big); // the model is estimated and cached: the next task is the simulation
  t.equal(warm.status, 200, 'alone, it is admitted');

  hold.arm();
  const held = calculate(s.base, s.key, big);
  await hold.held('the first calculation to be held in its worker');
  const refused = await calculate(s.base, s.key, big);
  t.equal(refused.status, 503, 'a second one would exceed the memory budget');
  t.equal(refused.body.detail.code, 'SERVER_BUSY');
  t.match(refused.body.detail.message, /memory/, 'and says it is memory');
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'with a Retry-After');
  const admitted = async () => {
    const text = (await call(s.base, 'GET', '/metrics')).text;
    return [...text.matchAll(/^admission_decisions_total\{[^}]*decision="admitted"[^}]*\} (\d+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
  };
  const before = await admitted();
  const closedForm = calculate(s.base, s.key, calcBody(ds, { method: 'parametric_normal', method_options: {} }));
  await waitFor(async () => ((await admitted()) > before ? true : undefined), 'the closed form to be admitted while the first is held');
  hold.release();
  t.equal((await held).status, 200, 'the held one completes');
  t.equal((await closedForm).status, 200, 'the closed form, which holds no scenarios, was admitted meanwhile');
  t.equal((await calculate(s.base, s.key, big)).status, 200, 'once memory is free again the refused one runs');
});

t.test('an option book counts the kept scenarios it holds', async (t) => {
  const hold = engineHold();
  // 10 options on AAPL × 500,000: the drawn units and two books' P&L of 500,000 values each, more
  // than 10 MiB; the held stock book's 20,000 scenarios leave too little beside it.
  const s = await startTestService({ WORKERS: '1', ADMISSION_MEMORY_MB: '10', RATE_LIMIT_CALCULATE_PER_MIN: '1000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const small = calcBody(ds, { simulations: 20_000 });
  const positions = Array.from({ length: 10 }, (_, i) => ({
    option: { underlying: 'AAPL', type: i % 2 ? 'call' : 'put', strike: 250 + i, expiry: '2020-06-19', volatility: 0.3 },
    quantity: 1,
  }));
  const options = calcBody(ds, { portfolio: undefined, positions, simulations: 500_000 });
  t.equal((await calculate(s.base, s.key, small)).status, 200, 'the stock book alone');
  t.equal((await calculate(s.base, s.key, options)).status, 200, 'the option book alone, on an idle service');

  hold.arm();
  const held = calculate(s.base, s.key, small);
  await hold.held('the stock calculation to be held in its worker');
  const refused = await calculate(s.base, s.key, options);
  t.equal(refused.status, 503, `the option book would exceed the memory budget: ${refused.text.slice(0, 200)}`);
  t.match(refused.body.detail.message, /memory/, 'and says it is memory');
  hold.release();
  t.equal((await held).status, 200, 'the held one completes');
  t.equal((await calculate(s.base, s.key, options)).status, 200, 'then the option book runs');
});
