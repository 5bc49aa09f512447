// Overload with goodput: a burst of heavy calculations that cannot all fit before the deadline gets
// answers for what fits and an immediate 503 SERVER_BUSY (with Retry-After) for the rest — never a
// row of timeouts after 30 s of busy cores. The outcome does not hang on the machine's speed: the
// deadline is fixed, and the burst's calculations are sized from the cost model this same instance
// learned from its warm-ups, so how many are admitted (one) is set by construction, and the one
// admitted has 2.5× its estimated time: it fails only if the machine slows that much mid-burst.
import t from 'tap';
import { ADMIT_SHARE } from '../../src/risk/admission.js';
import { heavyBody as heavy, metric, unitsPerSimulation } from '../helpers/admission-sizing.js';
import { calculate, call, uploadFile, type Reply } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

const DEADLINE_MS = 8_000;
const WORKERS = 2; // testEnv's
/** The burst's calculation is estimated at 75 % of the deadline / 1.9: one fits, two do not. Only
 * one: admitted calculations share the workers (each one's last task queues behind the others'
 * first), so all of them finish near the end of their total, and one alone has the most room. */
const FITS = 1.9;
const BURST = 8;
/** The service's estimate of one such calculation, in ms on all its workers (src/risk/admission.ts). */
const estimateMs = (simulations: number, nsPerUnit: number) => (simulations * unitsPerSimulation() * nsPerUnit) / 1e6 / WORKERS;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

t.test(`${BURST} heavy calculations at once, with room for one: it is answered, the rest refused 503 at once`, async (t) => {
  const s = await startTestService({ CALC_TIMEOUT_MS: String(DEADLINE_MS), MAX_SIMULATIONS: '100000000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const targetMs = (ADMIT_SHARE * DEADLINE_MS) / FITS;
  /** Simulations the model as it stands now estimates at `targetMs` (at least enough to teach it). */
  const sized = async (share = 1) =>
    Math.min(1e8, Math.max(50_000, Math.round((share * targetMs) / estimateMs(1, await metric(s.base, 'admission_cost_per_unit_ns')))));

  // Warm-ups teach the cost model at the burst's size (the start-up calibration is a smaller
  // calculation, cheaper per unit), each sized by the model as it has learned so far, growing to
  // it: on a loaded machine the calibration may be several times off, and a warm-up that times
  // out teaches nothing.
  t.equal((await calculate(s.base, s.key, heavy(ds, 1_000_000))).status, 200, 'a first calculation warms the engine and the caches');
  const warmUps: { simulations: number; ms: number }[] = [];
  for (const [i, share] of [0.1, 0.25, 0.5, 1, 1, 1].entries()) {
    const simulations = await sized(share);
    const started = performance.now();
    const r = await calculate(s.base, s.key, heavy(ds, simulations));
    t.equal(r.status, 200, `warm-up ${i + 1} alone is served (${simulations} simulations)`);
    warmUps.push({ simulations, ms: performance.now() - started });
  }
  const simulations = await sized();
  const estimated = estimateMs(simulations, await metric(s.base, 'admission_cost_per_unit_ns'));
  const measured = simulations * median(warmUps.slice(-3).map((w) => w.ms / w.simulations));
  // The cost model follows what it measures (within 3×: other load may change between warm-ups),
  // else sizing the burst by it would say little about the time the burst takes.
  const ratio = measured / estimated;
  t.ok(ratio > 1 / 3 && ratio < 3, `estimate ${estimated.toFixed(0)} ms, the last warm-ups ${measured.toFixed(0)} ms`);
  // Admission lets n in while n × estimate ≤ 75 % of the deadline.
  const fit = Math.floor((ADMIT_SHARE * DEADLINE_MS) / estimated);

  const arrivals: { reply: Reply; at: number }[] = [];
  const sent = performance.now();
  await Promise.all(
    Array.from({ length: BURST }, async () => {
      const reply = await calculate(s.base, s.key, heavy(ds, simulations));
      arrivals.push({ reply, at: performance.now() });
    }),
  );
  const code = (a: { reply: Reply }) => (a.reply.status === 200 ? 'OK' : (a.reply.body.detail?.code as string));
  const busy = arrivals.filter((a) => code(a) === 'SERVER_BUSY');
  const ok = arrivals.filter((a) => code(a) === 'OK');
  const late = arrivals.filter((a) => code(a) === 'CALCULATION_TIMEOUT');
  const admitted = ok.length + late.length;
  const work =
    `deadline ${DEADLINE_MS} ms; each calculation ${simulations} simulations, estimated ${estimated.toFixed(0)} ms ` +
    `(warm-ups ${measured.toFixed(0)} ms); ${fit} fit; ${admitted} admitted = ${(admitted * estimated).toFixed(0)} ms of work`;
  t.comment(`${work}; answers in order: ${arrivals.map((a) => `${code(a)} at ${(a.at - sent).toFixed(0)} ms`).join(', ')}`);
  t.ok(admitted >= 1 && admitted <= fit, `${admitted} admitted: no more than fit 75 % of the deadline by the estimate (${fit})`);
  t.equal(busy.length, BURST - admitted, 'the rest refused');
  t.ok(ok.length >= 1, `${ok.length} answered`);
  t.equal(late.length, 0, `none timed out (${work})`);
  const firstResult = Math.min(...[...ok, ...late].map((a) => a.at));
  t.ok(
    busy.every((a) => a.at < firstResult),
    'every refusal arrived before the first result: refused at admission, not after computing',
  );
  for (const { reply } of busy) {
    const retryAfter = Number(reply.headers.get('retry-after'));
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
    t.equal(reply.body.detail.retry_after_s, retryAfter, 'the body says the same');
  }
  const metrics = (await call(s.base, 'GET', '/metrics')).text;
  t.match(metrics, new RegExp(`^admission_refusals_total ${busy.length}$`, 'm'), 'the refusals are counted');
  t.match(metrics, /^admission_queued_work_ms 0$/m, 'no work left queued once the burst has finished');
  t.equal((await calculate(s.base, s.key, heavy(ds, simulations))).status, 200, 'served again once the burst has finished');
});
