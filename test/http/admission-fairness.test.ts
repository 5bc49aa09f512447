// Admission between owners, through the real server (issue: one tenant cannot hurt another): an
// owner holds at most its share of the admissible work, so another owner's calculation is admitted
// while the first one's burst is refused; a calculation whose own estimate is far beyond the
// deadline is refused at once even on an idle service; Retry-After never exceeds the deadline.
// Sizes come from the cost model this same service reports, so what fits is set by construction.
import t from 'tap';
import { ADMIT_SHARE, DEFAULT_OWNER_SHARE, OWN_ESTIMATE_LIMIT } from '../../src/risk/admission.js';
import { requestShape, workUnits } from '../../src/risk/work-cost.js';
import { DATES, heavyBody as body, heavyShape as shape, metric, SYMBOLS, unitsPerSimulation } from '../helpers/admission-sizing.js';
import { calculate, call, uploadFile, type Reply } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const DEADLINE_MS = 20_000;
const WORKERS = 1;
/** Worker-ms the service admits at once. */
const CAPACITY_MS = ADMIT_SHARE * DEADLINE_MS * WORKERS;
t.test('two owners on one worker: the owner over its share is refused, the other admitted', async (t) => {
  const s = await startTestService({ WORKERS: String(WORKERS), CALC_TIMEOUT_MS: String(DEADLINE_MS), MAX_SIMULATIONS: '100000000' });
  t.teardown(() => s.stop());
  const alice = await s.newKey({ owner: 'alice', calculate: 1000 });
  const bob = await s.newKey({ owner: 'bob', calculate: 1000 });
  const dsA = (await uploadFile(s.base, alice.key, WIDE_SAMPLE)).body.dataset_id as string;
  const dsB = (await uploadFile(s.base, bob.key, WIDE_SAMPLE)).body.dataset_id as string;
  const nsPerUnit = await metric(s.base, 'admission_cost_per_unit_ns');
  /** Simulations the cost model estimates at `share` of the capacity. */
  const sized = (share: number) => Math.max(1_000, Math.round((share * CAPACITY_MS * 1e6) / nsPerUnit / unitsPerSimulation()));
  // Alice: 4 calculations of 24 % each. Two fit her half (48 %); all three that fit the whole
  // service (72 %) would leave no room for Bob's 5 %: before owners had shares, he was refused.
  const heavy = sized(0.24);
  const burst = Array.from({ length: 4 }, () => calculate(s.base, alice.key, body(dsA, heavy)));
  await waitFor(async () => ((await metric(s.base, 'admission_queued_work_ms')) >= 0.47 * CAPACITY_MS ? true : undefined), 'alice’s share admitted', 60_000);
  const small = await calculate(s.base, bob.key, body(dsB, sized(0.05)));
  // Admitted beside alice's burst (the metric below counts it): answered, or stopped by its deadline
  // when other load slows this machine below what the cost model measured at start.
  t.ok(small.status === 200 || small.body?.detail?.code === 'CALCULATION_TIMEOUT', `bob is admitted beside alice's burst: ${small.text.slice(0, 200)}`);
  const replies: Reply[] = await Promise.all(burst);
  const busy = replies.filter((r) => r.body?.detail?.code === 'SERVER_BUSY');
  t.equal(busy.length, 2, `alice: two refused at once (${replies.map((r) => r.body?.detail?.code ?? r.status).join(', ')})`);
  for (const r of busy) {
    t.match(r.body.detail.message, /your share/, 'the refusal says it is her share that is full');
    const retry = Number(r.headers.get('retry-after'));
    t.ok(retry >= 1 && retry <= DEADLINE_MS / 1000, `Retry-After ${retry} s: never past the deadline of the work it waits for`);
  }
  // Her admitted ones run: answered, or stopped by the deadline if other load slowed this machine.
  for (const r of replies.filter((x) => !busy.includes(x)))
    t.ok(r.status === 200 || r.body?.detail?.code === 'CALCULATION_TIMEOUT', `alice's admitted: ${r.status}`);
  const metrics = (await call(s.base, 'GET', '/metrics')).text;
  t.match(metrics, /^admission_decisions_total\{owner="alice",decision="refused"\} 2$/m, 'refusals counted per owner');
  t.match(metrics, /^admission_decisions_total\{owner="bob",decision="admitted"\} 1$/m, 'admissions counted per owner');
  t.match(metrics, /^nodejs_eventloop_lag_p99_seconds /m, 'the event-loop delay is exported');
  t.ok(DEFAULT_OWNER_SHARE === 0.5, 'the default share the sizes above assume');
});

t.test('a calculation far beyond the deadline is refused at once, even on an idle service', async (t) => {
  const s = await startTestService({ WORKERS: String(WORKERS), CALC_TIMEOUT_MS: '5000', MAX_SIMULATIONS: '100000000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  // 10 symbols × 10⁷ simulations × 1,000 rebalanced days: hours of work against a 5 s deadline.
  const huge = { ...body(ds, 10_000_000), portfolio_mode: 'rebalanced', time_horizon: 1000 };
  const units = workUnits(requestShape({ ...shape(10_000_000), portfolio_mode: 'rebalanced', time_horizon: 1000 }, SYMBOLS.length, 1, DATES));
  const estimateMs = (units * (await metric(s.base, 'admission_cost_per_unit_ns'))) / 1e6 / WORKERS;
  t.ok(estimateMs > 10 * OWN_ESTIMATE_LIMIT * 5000, `the model estimates ${estimateMs.toFixed(0)} ms: far beyond twice the deadline`);
  const r = await calculate(s.base, s.key, huge);
  t.equal(r.status, 503);
  t.equal(r.body?.detail?.code, 'CALCULATION_TIMEOUT');
  t.match(r.body?.detail?.message, /would not finish within 5000 ms even alone/);
  t.equal(await metric(s.base, 'engine_tasks_in_flight'), 0, 'nothing was started for it');
  const next = await calculate(s.base, s.key, body(ds, 10_000));
  t.equal(next.status, 200, 'the service is free at once for the next calculation');
});
