// Back-pressure and deadlines of the engine pool: 503 SERVER_BUSY and 503 CALCULATION_TIMEOUT.
import t from 'tap';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { firstKey, spawnService } from '../helpers/process.js';
import { startTestService, tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';
import { processCpuSeconds, waitFor } from '../helpers/wait.js';
import { readFileSync } from 'node:fs';
import { requestShape, workUnits } from '../../src/risk/work-cost.js';
import { type CalculateRequest } from '../../src/contract/schemas.js';

const DATES = readFileSync(WIDE_SAMPLE, 'utf8').trim().split('\n').length - 1;
const DEADLINE_MS = 3000;

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

t.test('deadline passed: 503 CALCULATION_TIMEOUT, the computation stops, and the pool recovers', async (t) => {
  // The service in its own process, so that its CPU is its own. The deadline leaves a replacement
  // worker time to start; the slow request needs far longer.
  const svc = await spawnService(testEnv(tempDir(), { WORKERS: '1', CALC_TIMEOUT_MS: String(DEADLINE_MS), MAX_SIMULATIONS: '100000000' }), t);
  const pid = svc.child.pid!;
  const key = firstKey(svc)!;
  const base = `http://127.0.0.1:${svc.port}`;
  const ds = (await uploadFile(base, key, WIDE_SAMPLE)).body.dataset_id;
  await calculate(base, key, calcBody(ds, { simulations: 1000 }));
  // Admission refuses at once what it estimates beyond twice the deadline: the slow request is
  // sized by the cost model, taught by warm-ups of its own shape, at 1.9 deadlines.
  const slowBody = (simulations: number) => calcBody(ds, { method: 'monte_carlo_student_t', simulations, time_horizon: 100 });
  const sized = async (ms: number) => {
    const nsPerUnit = Number(/^admission_cost_per_unit_ns (\S+)$/m.exec((await call(base, 'GET', '/metrics')).text)![1]);
    const perSimulation = workUnits(requestShape(slowBody(1) as CalculateRequest, 3, 1, DATES));
    return Math.max(1_000, Math.round((ms * 1e6) / nsPerUnit / perSimulation));
  };
  // Growing warm-ups: the start-up calibration is of a one-day path and may be several times off for these.
  for (const share of [0.05, 0.1, 0.2, 0.3]) {
    t.equal((await calculate(base, key, slowBody(await sized(share * DEADLINE_MS)))).status, 200, `a warm-up at ${share} of the deadline`);
  }
  const slow = calculate(base, key, slowBody(await sized(1.9 * DEADLINE_MS)));
  // CPU over one window while the engine computes (the deadline is well after it)…
  await waitFor(async () => ((await call(base, 'GET', '/metrics')).text.includes('engine_tasks_in_flight 1') ? true : undefined), 'the task to start');
  const computing = await cpuOver(pid, 1000);
  const timedOut = await slow;
  t.equal(timedOut.status, 503);
  t.equal(timedOut.body.detail.code, 'CALCULATION_TIMEOUT');
  // …and over the same window once the pool has replaced the worker. A computation still running
  // after its deadline would keep a core busy: the service would use as much CPU as while computing.
  await waitFor(async () => ((await call(base, 'GET', '/readyz')).status === 200 ? true : undefined), 'the pool to be ready again');
  const next = await calculate(base, key, calcBody(ds, { simulations: 1000 }));
  t.equal(next.status, 200, `the worker was replaced; next request succeeds: ${next.text.slice(0, 200)}`);
  t.match((await call(base, 'GET', '/metrics')).text, /^calculation_timeouts_total 1$/m, 'the timeout is counted');
  const idle = await cpuOver(pid, 1000);
  t.comment(`service CPU: ${(computing * 100).toFixed(0)} % of a core while computing, ${(idle * 100).toFixed(0)} % after the deadline`);
  t.ok(idle < computing / 4, `the computation stopped at the deadline (CPU ${idle.toFixed(2)} vs ${computing.toFixed(2)} cores)`);
});

/** Cores a process used on average over `ms` (a measurement window, not a wait for a condition). */
async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = await processCpuSeconds(pid);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, ms));
  return ((await processCpuSeconds(pid)) - before) / ((performance.now() - started) / 1000);
}
