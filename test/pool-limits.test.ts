// Back-pressure and deadlines of the engine pool: 503 SERVER_BUSY and 503 CALCULATION_TIMEOUT.
import t from 'tap';
import { calcBody, calculate, uploadFile } from './helpers/http.js';
import { startTestService, WIDE_SAMPLE } from './helpers/service.js';

t.test('queue full: 503 SERVER_BUSY with Retry-After', async (t) => {
  const s = await startTestService({ WORKERS: '1', MAX_QUEUE: '1' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id;
  await calculate(s.base, s.key, calcBody(ds, { simulations: 1000 })); // estimate cached
  const heavy = calcBody(ds, { method: 'monte_carlo_student_t', simulations: 200_000, time_horizon: 10 });
  const replies = await Promise.all(Array.from({ length: 5 }, () => calculate(s.base, s.key, heavy)));
  const busy = replies.filter((r) => r.status === 503);
  t.ok(busy.length >= 1, `${busy.length} of 5 refused: ${replies.map((r) => r.status).join(' ')}`);
  t.ok(
    replies.some((r) => r.status === 200),
    'the admitted ones succeed',
  );
  t.equal(busy[0]?.body.detail.code, 'SERVER_BUSY');
  t.equal(busy[0]?.headers.get('retry-after'), '1');
  t.equal((await calculate(s.base, s.key, calcBody(ds, { simulations: 1000 }))).status, 200, 'served again once the queue drains');
});

t.test('deadline passed: 503 CALCULATION_TIMEOUT, and the pool recovers', async (t) => {
  // The deadline leaves a replacement worker time to start; the slow request needs far longer.
  const s = await startTestService({ WORKERS: '1', CALC_TIMEOUT_MS: '2000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id;
  await calculate(s.base, s.key, calcBody(ds, { simulations: 1000 }));
  const slow = await calculate(s.base, s.key, calcBody(ds, { method: 'monte_carlo_student_t', simulations: 5_000_000, time_horizon: 100 }));
  t.equal(slow.status, 503);
  t.equal(slow.body.detail.code, 'CALCULATION_TIMEOUT');
  // The engine stops itself at the deadline: a worker still computing would burn a full second of
  // CPU in the next second. (Run directly this measures ~15 ms; tap's runner adds ~0.5 s of its own.)
  await new Promise((r) => setTimeout(r, 200));
  const before = process.cpuUsage();
  await new Promise((r) => setTimeout(r, 1000));
  const used = process.cpuUsage(before);
  t.ok((used.user + used.system) / 1000 < 800, `CPU idle after the deadline: ${((used.user + used.system) / 1000).toFixed(0)} ms in 1 s`);
  const next = await calculate(s.base, s.key, calcBody(ds, { simulations: 1000 }));
  t.equal(next.status, 200, `the worker was replaced; next request succeeds: ${next.text.slice(0, 200)}`);
});
