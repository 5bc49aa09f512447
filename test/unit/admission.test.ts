// Admission by estimated work: what is admitted and refused against the deadline, the Retry-After it
// computes, releases, the cost model's learning, and the work units over the request's whole domain.
import t from 'tap';
import fc from 'fast-check';
import { ADMIT_SHARE, BeyondDeadlineError, OverloadError, OWN_ESTIMATE_LIMIT, WorkAdmission } from '../../src/risk/admission.js';
import { optionBookShape, requestShape, TAIL_WEIGHT, workBytes, workUnits, type WorkShape } from '../../src/risk/work-cost.js';

const shape = (over: Partial<WorkShape> = {}): WorkShape => ({
  scenarios: 1_000_000,
  assets: 10,
  books: 1,
  steps: 1,
  correlated: true,
  window: 1000,
  confidence: 0.99,
  ...over,
});

t.test('admits while the queued work and its own end before the deadline, then refuses at once', async (t) => {
  // 1 ns per unit: a calculation of 1e9 units is 1,000 worker-ms; on 2 workers, 500 ms of wall time.
  // One owner may hold all of it here (share 1): the owners' shares are the next test's.
  const a = new WorkAdmission(2, 1, 1);
  const budget = 4000 / ADMIT_SHARE; // room for 4,000 ms of wall time: 8 such calculations
  const tickets = Array.from({ length: 8 }, () => a.admit(1e9, budget));
  t.equal(a.queuedWorkMs, 8000);
  const refused = t.throws(() => a.admit(1e9, budget)) as unknown;
  t.ok(refused instanceof OverloadError, 'the ninth is refused');
  t.equal((refused as OverloadError).retryAfterS, 4, 'Retry-After: the queued work over the workers, in whole seconds');
  t.equal(a.queuedWorkMs, 8000, 'a refusal adds nothing');
  tickets[0]!.release();
  t.doesNotThrow(() => a.admit(1e9, budget), 'admitted again once one has finished');
  tickets[0]!.release();
  t.equal(a.queuedWorkMs, 8000, 'a second release of one ticket changes nothing');
});

t.test('one owner holds at most its share: another owner is still admitted, only the owner over its share refused', async (t) => {
  const a = new WorkAdmission(2, 1, 0.5);
  const budget = 4000 / ADMIT_SHARE; // 8 calculations of 1e9 units fit; each owner may hold 4
  for (let i = 0; i < 4; i++) a.admit(1e9, budget, 'alice');
  const over = t.throws(() => a.admit(1e9, budget, 'alice')) as unknown as OverloadError;
  t.ok(over instanceof OverloadError && over.ownerOverShare, 'alice’s fifth is refused: her share is full');
  t.equal(over.retryAfterS, 2, 'Retry-After: alice’s own queued work over the workers');
  for (let i = 0; i < 4; i++) t.doesNotThrow(() => a.admit(1e9, budget, 'bob'), `bob's calculation ${i + 1} is admitted beside alice's`);
  const full = t.throws(() => a.admit(1e9, budget, 'carol')) as unknown as OverloadError;
  t.notOk(full.ownerOverShare, 'a newcomer meets the whole service full, not a share');
  t.strictSame(
    Object.fromEntries(a.byOwner),
    { alice: { admitted: 4, refused: 1 }, bob: { admitted: 4, refused: 0 }, carol: { admitted: 0, refused: 1 } },
    'decisions counted per owner',
  );
  const b = new WorkAdmission(1, 1, 0.01);
  t.doesNotThrow(() => b.admit(1e9, 1e6, 'alice'), 'an owner with nothing admitted is never over its share');
});

t.test('an idle service admits anything within its deadline; a calculation beyond it is refused even alone', async (t) => {
  const a = new WorkAdmission(1, 1);
  const budget = 1000;
  const beyond = t.throws(() => a.admit(OWN_ESTIMATE_LIMIT * budget * 1e6 + 1e6, budget)) as unknown;
  t.ok(beyond instanceof BeyondDeadlineError, 'estimated past twice its deadline: refused before it runs');
  t.equal(a.queuedWorkMs, 0, 'and nothing queued for it');
  const huge = a.admit(OWN_ESTIMATE_LIMIT * budget * 1e6, budget);
  t.equal(a.queuedWorkMs, 2000, 'at the limit: admitted alone (the estimate may be wrong)');
  t.throws(() => a.admit(0, budget), { name: 'OverloadError' }, 'behind it even a closed-form request would wait past its deadline');
  huge.release();
  t.equal(a.queuedWorkMs, 0, 'nothing left once everything has finished');
  t.doesNotThrow(() => a.admit(0, 1));
});

t.test('memory: admitted peaks add up to the budget, then the next is refused at once; alone, anything is admitted', async (t) => {
  const a = new WorkAdmission(2, 1e-9, 1, 1000); // time is no constraint here: 1e-9 ns per unit
  const first = a.admit(1, 1000, 'a', 600);
  t.equal(a.admittedBytes, 600);
  const second = a.admit(1, 1000, 'b', 400);
  t.equal(a.admittedBytes, 1000, 'exactly the budget is admitted');
  const refused = t.throws(() => a.admit(1, 1000, 'c', 1)) as unknown;
  t.ok(refused instanceof OverloadError && refused.memory, 'one byte over: refused, and for memory');
  first.release();
  second.release();
  t.equal(a.admittedBytes, 0, 'released');
  t.doesNotThrow(() => a.admit(1, 1000, 'c', 10_000).release(), 'alone, even a calculation over the budget runs (the engine bounds it)');
});

t.test('workBytes: the P&L of every book and scenario, the tail with its assets; finite over the domain', async (t) => {
  t.equal(workBytes(shape({ scenarios: 0 })), 0, 'the closed form keeps none');
  t.equal(workBytes(shape({ scenarios: 1000, assets: 10, books: 2, confidence: 0.99 })), 8 * (2 * 1000 + 10 * 22 * 2));
  t.equal(workBytes(shape({ scenarios: 1000, assets: 10, books: 1, confidence: 0 })), 8 * (1000 + 1000 * 22), 'importance sampling keeps every scenario');
  // A maximum batch (200 books × 500,000 simulations) at 99 %: 0.8 GB of P&L, 0.18 GB of tail.
  t.equal(workBytes(shape({ scenarios: 500_000, assets: 10, books: 200 })), 8 * (1e8 + 5000 * 22 * 200));
  // Kept scenarios: an option book of 500 options on 3 symbols × 99,840 (the drawn 3 columns and the
  // 1,003 widened ones): 0.8 GB, where the P&L and tail alone are 36 MB.
  const options = shape({ scenarios: 99_840, assets: 1003, books: 2, confidence: 0.99 });
  const tail = 999 * (2 * 1003 + 2) * 2;
  t.equal(workBytes(options), 8 * (2 * 99_840 + tail), 'without its kept scenarios');
  t.equal(workBytes({ ...options, kept: 3 + 1003 }), 8 * (2 * 99_840 + tail + 99_840 * 1006), 'with them');
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 100_000_000 }),
      fc.integer({ min: 1, max: 5000 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.double({ min: 0, max: 0.9999, noNaN: true }),
      (scenarios, assets, books, confidence) => {
        const b = workBytes(shape({ scenarios, assets, books, confidence }));
        return Number.isFinite(b) && b >= 8 * books * scenarios;
      },
    ),
  );
});

t.test('optionBookShape: the drawn units held, the option columns priced but never held', async (t) => {
  const req = { method: 'monte_carlo_normal', simulations: 99_840, time_horizon: 10, confidence_level: 0.99 } as const;
  // A what-if over 3 drawn units and 500 options (each as asked and at delta): two passes of two books.
  const s = optionBookShape(req, 3, 1000, 4, 500);
  t.strictSame(s, { ...requestShape(req, 1003, 4, 500), kept: 3 }, 'the request shape over every column, holding the drawn 3');
  t.equal(workBytes(s), workBytes({ ...s, kept: 0 }) + 8 * 99_840 * 3, 'bytes: the P&L and tails, and 3 kept columns');
  t.equal(workUnits(s), workUnits(requestShape(req, 1003, 4, 500)), 'units: every column priced');
  t.equal(workBytes(optionBookShape({ ...req, method: 'parametric_normal' }, 3, 1000, 2, 500)), 0, 'parametric keeps no scenario');
});

t.test('Retry-After is at least one second, and never longer than the blocking work can still run', async (t) => {
  const a = new WorkAdmission(2, 1);
  a.admit(1e6, 1); // 1 worker-ms
  const e = t.throws(() => a.admit(2e6, 1)) as unknown as OverloadError;
  t.equal(e.retryAfterS, 1);
  // 19 s of work admitted alone (its estimate within twice its deadline), but its 10 s deadline stops it.
  const b = new WorkAdmission(1, 1, 1);
  b.admit(1.9e10, 10_000, 'alice');
  const late = t.throws(() => b.admit(1e6, 10_000, 'carol')) as unknown as OverloadError;
  t.equal(late.retryAfterS, 10, 'the admitted work is stopped by its deadline: retry then, not in 19 s');
});

t.test('the cost model follows what calculations measure, and ignores the small and the absurd', async (t) => {
  const a = new WorkAdmission(2, 1);
  a.learn(1e3, 1e6); // too small to teach anything
  a.learn(1e9, Number.NaN);
  a.learn(1e9, 0);
  a.learn(1e9, Number.POSITIVE_INFINITY);
  t.equal(a.costPerUnitNs, 1);
  for (let i = 0; i < 40; i++) a.learn(1e9, 3000); // 3 ns per unit measured
  t.ok(Math.abs(a.costPerUnitNs - 3) < 1e-6, `converges to the measured cost (${a.costPerUnitNs})`);
  const ticket = a.admit(1e9, 1e9);
  ticket.release({ busyMs: 1000, tasks: 8 }); // 8 tasks on 2 workers: 2 ran at a time
  t.ok(a.costPerUnitNs < 3, 'a release with its measurement teaches the model');
});

t.test('work units: zero for the closed form, the tail weighs by 1 − c, finite over the whole domain', async (t) => {
  t.equal(workUnits(shape({ scenarios: 0 })), 0);
  const tail = (c: number) => workUnits(shape({ confidence: c })) - workUnits(shape({ confidence: 1 }));
  t.ok(Math.abs(tail(0.5) / tail(0.99) - 50) < 1e-9, 'the tail term is proportional to 1 − c');
  t.equal(workUnits(shape({ confidence: 1, correlated: false })), 1_000_000 * 20, 'historical: each asset read once, priced once');
  t.ok(Math.abs(tail(0.99) / (1_000_000 * 10 * TAIL_WEIGHT * (1 - 0.99)) - 1) < 1e-12, 'per scenario, book and asset');
  // Drawing costs the engine's factor's work: n·m through loadings while m ≤ n, else n(n + 1)/2.
  const draw = (assets: number, window: number) => workUnits(shape({ assets, window, books: 0, confidence: 1 })) / 1_000_000;
  t.same(
    [draw(5000, 250), draw(5000, 4000), draw(5000, 5000), draw(5000, 5001), draw(10, 1000)],
    [5000 * 250, 5000 * 4000, 5000 * 5000, (5000 * 5001) / 2, 55],
  );
  const bounds = fc.record({
    scenarios: fc.constantFrom(0, 1, 100, 2 ** 31, 2 ** 32, 100_000_000),
    assets: fc.integer({ min: 1, max: 5000 }),
    books: fc.integer({ min: 1, max: 200 }),
    steps: fc.integer({ min: 1, max: 252 }),
    correlated: fc.boolean(),
    window: fc.integer({ min: 1, max: 100_000 }),
    confidence: fc.double({ min: 0.5, max: 0.9999, noNaN: true }),
  });
  fc.assert(
    fc.property(bounds, (w) => {
      const u = workUnits(w);
      return Number.isFinite(u) && u >= 0 && (w.scenarios === 0) === (u === 0);
    }),
  );
});

t.test('the request shape: simulations, historical windows, the closed form, stepwise horizons', async (t) => {
  const req = { method: 'monte_carlo_normal', simulations: 50_000, time_horizon: 10, portfolio_mode: 'buy_and_hold', confidence_level: 0.99 } as const;
  t.match(requestShape(req, 5, 2, 800), { scenarios: 50_000, assets: 5, books: 2, steps: 1, correlated: true });
  t.match(requestShape({ ...req, method: 'monte_carlo_student_t' }, 5, 1, 800), { steps: 10 });
  t.match(requestShape({ ...req, portfolio_mode: 'rebalanced' }, 5, 1, 800), { steps: 10 });
  t.match(requestShape({ ...req, method: 'historical' }, 5, 1, 800), { scenarios: 790, correlated: false });
  t.match(requestShape(req, 5, 1, 800), { window: 799 }, 'the window: every return, or the lookback');
  t.match(requestShape({ ...req, method_options: { lookback: 250 } }, 5, 1, 800), { window: 250 });
  t.match(requestShape({ ...req, method: 'historical', time_horizon: 900 }, 5, 1, 800), { scenarios: 0 });
  t.match(requestShape({ ...req, method: 'parametric_normal' }, 5, 1, 800), { scenarios: 0 });
  t.match(requestShape({ method: 'monte_carlo_normal', time_horizon: 1, portfolio_mode: 'buy_and_hold', confidence_level: 0.99 }, 5, 1, 800), {
    scenarios: 0,
  });
});
